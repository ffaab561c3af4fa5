// Text units indexed so far (ingest --estimate: topics are rebuilt over all of them).
RETURN COUNT { (:Chunk) } AS n
