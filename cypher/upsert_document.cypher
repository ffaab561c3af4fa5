// One document and its text units; a document is its content hash, so a rerun adds nothing.
MERGE (d:Document {id: $doc.id})
ON CREATE SET d.title = $doc.title, d.path = $doc.path, d.sha256 = $doc.id, d += $doc.metadata,
              d.created_at = datetime()
WITH d
UNWIND $chunks AS c
MERGE (ch:Chunk {id: c.id})
ON CREATE SET ch.text = c.text, ch.n_tokens = c.n_tokens, ch.index = c.index, ch.document_id = d.id
MERGE (ch)-[:PART_OF]->(d)
WITH d, ch, c
OPTIONAL MATCH (prev:Chunk {id: c.prev_id})
FOREACH (_ IN CASE WHEN prev IS NULL THEN [] ELSE [1] END | MERGE (prev)-[:NEXT]->(ch))
