MATCH (c:Chunk) WHERE c.extracted = true
RETURN c.id AS id, c.text AS text
ORDER BY c.document_id, c.index
