// Extraction records dropped (bad records of otherwise good text units), by reason.
MATCH (c:Chunk) WHERE c.dropped IS NOT NULL
UNWIND c.dropped AS reason
RETURN reason, count(*) AS records
ORDER BY reason
