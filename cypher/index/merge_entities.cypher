// An extracted entity becomes (or joins) the entity with the same normalised key; the
// text unit's own description, context sentence and evidence (the ids of the sentences it
// rests on) stay on its MENTIONS relationship, and the entity points at each evidence
// sentence (EVIDENCE: what Browser and Bloom show beside it).
// $units: [{chunk_id, entities}] of many text units, merged in order in one transaction.
UNWIND $units AS u
MATCH (c:Chunk {id: u.chunk_id})
UNWIND u.entities AS e
MERGE (n:Entity {key: e.key})
ON CREATE SET n.name = e.name, n.type = e.type, n.description = e.description
SET n.dirty = true
MERGE (c)-[m:MENTIONS]->(n)
SET m.description = e.description, m.type = e.type, m.context = e.context,
    m.evidence = coalesce(e.evidence, [])
WITH n, e
CALL (n, e) {
  UNWIND coalesce(e.evidence, []) AS sid
  MATCH (s:Sentence {id: sid})
  MERGE (n)-[:EVIDENCE]->(s)
}
