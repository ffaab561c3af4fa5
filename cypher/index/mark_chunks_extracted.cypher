// The text units of one write batch are done (same transaction as their elements);
// $units: [{chunk_id, dropped}], dropped = one reason per extraction record dropped (its other
// records were kept).
UNWIND $units AS u
MATCH (c:Chunk {id: u.chunk_id})
SET c.extracted = true, c.error = null, c.dropped = u.dropped
WITH count(c) AS n WHERE n > 0
MERGE (m:Meta {id: 'index'}) SET m.graph_dirty = true
