// The text units of one write batch are done (same transaction as their elements).
UNWIND $chunk_ids AS id
MATCH (c:Chunk {id: id})
SET c.extracted = true, c.error = null
WITH count(c) AS n WHERE n > 0
MERGE (m:Meta {id: 'index'}) SET m.graph_dirty = true
