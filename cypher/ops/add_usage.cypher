// Cumulative LLM usage by pipeline stage, kept in the graph for `neo4j-retag stats`.
UNWIND $rows AS r
MERGE (u:LLMUsage {stage: r.stage})
SET u.calls = coalesce(u.calls, 0) + r.calls,
    u.cached = coalesce(u.cached, 0) + r.cached,
    u.failed = coalesce(u.failed, 0) + r.failed,
    u.prompt_tokens = coalesce(u.prompt_tokens, 0) + r.prompt_tokens,
    u.completion_tokens = coalesce(u.completion_tokens, 0) + r.completion_tokens
