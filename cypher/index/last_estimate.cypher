// The last ingest's estimate per stage with the profile's raw figures and what the run spent
// (index/estimate_profile.calibration).
MATCH (e:IngestEstimate)
WHERE e.actual_calls IS NOT NULL AND e.raw_calls IS NOT NULL
RETURN e.stage AS stage, e.profile AS profile, e.model AS model,
       e.raw_calls AS raw_calls, e.raw_prompt_tokens AS raw_prompt_tokens,
       e.raw_completion_tokens AS raw_completion_tokens, e.actual_calls AS actual_calls,
       e.actual_prompt_tokens AS actual_prompt_tokens,
       e.actual_completion_tokens AS actual_completion_tokens
