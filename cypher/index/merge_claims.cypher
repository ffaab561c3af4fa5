// $units: [{chunk_id, claims}] of many text units, merged in order in one transaction.
UNWIND $units AS u
MATCH (c:Chunk {id: u.chunk_id})
UNWIND u.claims AS cl
MATCH (e:Entity {key: cl.subject_key})
MERGE (n:Claim {id: cl.id})
SET n += cl.props
MERGE (c)-[:HAS_CLAIM]->(n)
MERGE (n)-[:ABOUT]->(e)
