// Every text unit with its document title: the text-summarisation (TS) baseline reads them all.
MATCH (c:Chunk)-[:PART_OF]->(d:Document)
RETURN c.id AS text_unit_id, c.text AS text, d.title AS title
ORDER BY c.document_id, c.index
