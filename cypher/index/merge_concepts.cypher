// Lazy index: the concepts of many text units and their co-occurrence, with each text unit's
// `concepts_done` mark, in one transaction. $rows: [{chunk_id, concepts: [{key, name, kind,
// count}], pairs: [[key_a, key_b]] with key_a < key_b}]. CO_OCCURS is stored once per
// unordered pair with the text units it comes from (documents delete takes theirs out);
// weight = the number of those text units.
UNWIND $rows AS u
MATCH (c:Chunk {id: u.chunk_id})
CALL (c, u) {
  UNWIND u.concepts AS k
  MERGE (n:Concept {key: k.key})
  ON CREATE SET n.name = k.name, n.kind = k.kind
  MERGE (c)-[h:HAS_CONCEPT]->(n)
  SET h.count = k.count
}
CALL (u) {
  UNWIND u.pairs AS p
  MATCH (a:Concept {key: p[0]})
  MATCH (b:Concept {key: p[1]})
  MERGE (a)-[x:CO_OCCURS]->(b)
  ON CREATE SET x.chunk_ids = []
  WITH x WHERE NOT u.chunk_id IN x.chunk_ids
  SET x.chunk_ids = x.chunk_ids + u.chunk_id
  SET x.weight = toFloat(size(x.chunk_ids))
}
SET c.concepts_done = true
WITH count(c) AS n WHERE n > 0
MERGE (m:Meta {id: 'index'})
SET m.graph_dirty = true, m.index_method = 'lazy'
