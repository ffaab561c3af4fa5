// Cumulative LLM usage by pipeline stage, kept in the graph for `neo4j-retag stats`.
// $write: one id per call, so that a write tried again after its commit's answer was lost
// (db/retry.py) adds nothing twice.
UNWIND $rows AS r
MERGE (u:LLMUsage {stage: r.stage})
WITH u, r WHERE coalesce(u.last_write, '') <> $write
SET u.last_write = $write,
    u.calls = coalesce(u.calls, 0) + r.calls,
    u.cached = coalesce(u.cached, 0) + r.cached,
    u.failed = coalesce(u.failed, 0) + r.failed,
    u.prompt_tokens = coalesce(u.prompt_tokens, 0) + r.prompt_tokens,
    u.completion_tokens = coalesce(u.completion_tokens, 0) + r.completion_tokens
