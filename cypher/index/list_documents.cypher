// Every document with its text units, the entities its text units mention (and how many of
// those no other document mentions: a delete would remove them) and when it was ingested.
MATCH (d:Document)
CALL (d) {
  OPTIONAL MATCH (d)<-[:PART_OF]-(c:Chunk)
  RETURN count(c) AS text_units, count(CASE WHEN c.text CONTAINS '\uFFFD' THEN c END)
         AS text_units_lossy
}
CALL (d) {
  OPTIONAL MATCH (d)<-[:PART_OF]-(:Chunk)-[:MENTIONS]->(e:Entity)
  WITH DISTINCT e
  RETURN count(e) AS entities,
         count(CASE WHEN NOT EXISTS {
           MATCH (e)<-[:MENTIONS]-(o:Chunk) WHERE o.document_id <> d.id } THEN e END)
           AS entities_only_here
}
// what the reader could not read (each set by index/documents.py, LOST_KEYS; null when none)
RETURN d.id AS id, d.title AS title, d.path AS path, text_units, entities, entities_only_here,
       toString(d.created_at) AS ingested_at, text_units_lossy,
       {pages_without_text: d.pages_without_text, hidden_slides: d.hidden_slides,
        hidden_shapes: d.hidden_shapes, unmapped_glyphs: d.unmapped_glyphs} AS lost
ORDER BY d.created_at, d.path, d.id
