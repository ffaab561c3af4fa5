// Where each cited text unit is: its location label ("report.pdf p. 7"), or for a text unit
// indexed before locations were kept, its document's title.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
OPTIONAL MATCH (c)-[:PART_OF]->(d:Document)
RETURN c.id AS id, coalesce(c.location, d.title) AS location
