// GraphRAG covariates (claims): linked to their text unit and to the subject entity.
UNWIND $rows AS row
MERGE (n:Claim {id: row.id})
SET n += row.props
WITH n, row
CALL (n, row) {
  MATCH (c:Chunk {id: row.chunk_id})
  MERGE (c)-[:HAS_CLAIM]->(n)
}
WITH n, row
CALL (n, row) {
  MATCH (e:Entity {key: row.subject_key})
  MERGE (n)-[:ABOUT]->(e)
}
