// The text units assigned to one topic (to assign them again among its narrower topics).
MATCH (c:Chunk)-[:ABOUT_TOPIC]->(:Topic {name: $name})
RETURN c.id AS id, c.text AS text
ORDER BY c.document_id, c.index
