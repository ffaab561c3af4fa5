// Text units whose noun-phrase concepts are not yet stored (lazy index; a rerun or resume
// picks up exactly these).
MATCH (c:Chunk) WHERE coalesce(c.concepts_done, false) = false
RETURN c.id AS id, c.text AS text
ORDER BY c.document_id, c.index
