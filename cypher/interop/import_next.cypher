// Consecutive text units of a document (row.prev precedes row.id).
UNWIND $rows AS row
MATCH (a:Chunk {id: row.prev})
MATCH (b:Chunk {id: row.id})
MERGE (a)-[:NEXT]->(b)
