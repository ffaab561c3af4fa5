// The latest ingest's estimate beside what it spent (index/estimate.py), by stage.
MATCH (e:IngestEstimate)
RETURN e.stage AS stage, e.calls AS calls, e.prompt_tokens AS prompt_tokens,
       e.completion_tokens AS completion_tokens, e.actual_calls AS actual_calls,
       e.actual_prompt_tokens AS actual_prompt_tokens,
       e.actual_completion_tokens AS actual_completion_tokens
ORDER BY stage
