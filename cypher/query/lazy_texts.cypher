// Text units by id with their document title (what relevance tests and claims read).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:PART_OF]->(d:Document)
RETURN c.id AS id, c.text AS text, d.title AS title
