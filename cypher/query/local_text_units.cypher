// Local search: the text units that mention each seeded entity ($keys, best first), as
// GraphRAG orders them: by the seed's rank, then by how many of the seed's relationships the
// unit supports; at most $per_entity per seed.
UNWIND range(0, size($keys) - 1) AS i
MATCH (e:Entity {key: $keys[i]})
CALL (e) {
  MATCH (ch:Chunk)-[:MENTIONS]->(e)
  WITH ch, COUNT { (e)-[r:RELATED]-() WHERE ch.id IN r.chunk_ids } AS rels
  ORDER BY rels DESC, ch.id
  LIMIT $per_entity
  RETURN collect(ch {.id, .text, rels: rels}) AS units
}
RETURN i, units
ORDER BY i
