MATCH (c:Chunk {id: $chunk_id})
SET c.extracted = $ok, c.error = $error
WITH c WHERE $ok
MERGE (m:Meta {id: 'index'}) SET m.graph_dirty = true
