// Text units topic assignment has not labelled yet (new ones, ones whose labelling failed).
MATCH (c:Chunk) WHERE c.extracted = true AND c.topics_assigned IS NULL
RETURN c.id AS id, c.text AS text
ORDER BY c.document_id, c.index
