MATCH (c:Chunk {id: $chunk_id})
UNWIND $claims AS cl
MATCH (e:Entity {key: cl.subject_key})
MERGE (n:Claim {id: cl.id})
SET n += cl.props
MERGE (c)-[:HAS_CLAIM]->(n)
MERGE (n)-[:ABOUT]->(e)
