// One text unit with its document (a citation of kind text_unit, opened on the page).
MATCH (c:Chunk {id: $id})-[:PART_OF]->(d:Document)
RETURN c.id AS id, c.text AS text, d.id AS document_id, d.title AS title, d.path AS path
