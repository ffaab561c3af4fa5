MATCH (c:Chunk {id: $chunk_id})
// dropped: one reason per extraction record dropped (its other records were kept)
SET c.extracted = $ok, c.error = $error, c.dropped = $dropped
WITH c WHERE $ok
MERGE (m:Meta {id: 'index'}) SET m.graph_dirty = true
