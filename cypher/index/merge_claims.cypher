// $units: [{chunk_id, claims}] of many text units, merged in order in one transaction; a
// claim points at each sentence that states it (EVIDENCE).
UNWIND $units AS u
MATCH (c:Chunk {id: u.chunk_id})
UNWIND u.claims AS cl
MATCH (e:Entity {key: cl.subject_key})
MERGE (n:Claim {id: cl.id})
SET n += cl.props
MERGE (c)-[:HAS_CLAIM]->(n)
MERGE (n)-[:ABOUT]->(e)
WITH n, cl
CALL (n, cl) {
  UNWIND coalesce(cl.evidence, []) AS sid
  MATCH (s:Sentence {id: sid})
  MERGE (n)-[:EVIDENCE]->(s)
}
