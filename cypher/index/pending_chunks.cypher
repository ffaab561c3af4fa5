// Text units not yet extracted (a rerun or resume picks up exactly these).
MATCH (c:Chunk) WHERE coalesce(c.extracted, false) = false
RETURN c.id AS id, c.text AS text
ORDER BY c.document_id, c.index
