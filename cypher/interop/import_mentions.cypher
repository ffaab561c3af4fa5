// Text unit -> entity links from entities.text_unit_ids (and text_units.entity_ids).
UNWIND $rows AS row
MATCH (e:Entity {key: row.key})
CALL (e, row) {
  UNWIND row.chunk_ids AS chunk_id
  MATCH (c:Chunk {id: chunk_id})
  MERGE (c)-[m:MENTIONS]->(e)
  SET m.type = row.type
}
