// The entities a text unit produced join the subgraph of each topic the text unit concerns.
UNWIND $rows AS row
MATCH (t:Topic {name: row.topic})
MATCH (c:Chunk {id: row.chunk_id})
MERGE (c)-[:ABOUT_TOPIC]->(t)
WITH c, t
MATCH (c)-[:MENTIONS]->(e:Entity)
SET e:$(t.label)
