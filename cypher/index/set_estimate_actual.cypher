// What the ingest whose estimate is stored actually spent, by estimate stage (a stage the
// estimate lacks gets a node of its own with an estimate of 0).
UNWIND $rows AS r
MERGE (e:IngestEstimate {stage: r.stage})
ON CREATE SET e.calls = 0, e.prompt_tokens = 0, e.completion_tokens = 0
SET e.actual_calls = r.calls, e.actual_prompt_tokens = r.prompt_tokens,
    e.actual_completion_tokens = r.completion_tokens
