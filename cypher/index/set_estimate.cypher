// The latest ingest's estimate (ingest --estimate's figures, index/estimate.py), one node per
// stage, replacing the previous ingest's; its actual usage is added when the run ends. raw_*:
// the profile's figures before calibration (the next estimate calibrates from actual / raw).
MATCH (old:IngestEstimate) DETACH DELETE old
WITH count(*) AS _
UNWIND $rows AS r
CREATE (:IngestEstimate {stage: r.stage, calls: r.calls, prompt_tokens: r.prompt_tokens,
                         completion_tokens: r.completion_tokens, raw_calls: r.raw_calls,
                         raw_prompt_tokens: r.raw_prompt_tokens,
                         raw_completion_tokens: r.raw_completion_tokens,
                         text_units: $meta.text_units, profile: $meta.profile,
                         model: $meta.model})
