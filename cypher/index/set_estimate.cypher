// The latest ingest's estimate (ingest --estimate's figures, index/estimate.py), one node per
// stage, replacing the previous ingest's; its actual usage is added when the run ends.
MATCH (old:IngestEstimate) DETACH DELETE old
WITH count(*) AS _
UNWIND $rows AS r
CREATE (:IngestEstimate {stage: r.stage, calls: r.calls, prompt_tokens: r.prompt_tokens,
                         completion_tokens: r.completion_tokens,
                         text_units: $meta.text_units, profile: $meta.profile})
