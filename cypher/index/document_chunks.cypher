// The text units of documents ($ids) that no other document holds.
MATCH (d:Document)<-[:PART_OF]-(c:Chunk)
WHERE d.id IN $ids AND NOT EXISTS { (c)-[:PART_OF]->(o:Document) WHERE NOT o.id IN $ids }
RETURN DISTINCT c.id AS id
ORDER BY id
