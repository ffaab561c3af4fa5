// Documents, their sentences and their text units; a document is its content hash, so a rerun
// adds nothing. A text unit holds every sentence its span touches (index/sentences.py).
UNWIND $rows AS doc
MERGE (d:Document {id: doc.id})
ON CREATE SET d.title = doc.title, d.path = doc.path, d.sha256 = doc.id, d += doc.metadata,
              d.created_at = datetime()
WITH d, doc
CALL (d, doc) {
  UNWIND doc.sentences AS s
  MERGE (x:Sentence {id: s.id})
  ON CREATE SET x.text = s.text, x.index = s.index, x.location = s.location, x.page = s.page,
                x.document_id = d.id
}
CALL (d, doc) {
  UNWIND doc.chunks AS c
  MERGE (ch:Chunk {id: c.id})
  ON CREATE SET ch.text = c.text, ch.n_tokens = c.n_tokens, ch.index = c.index,
                ch.document_id = d.id, ch.location = c.location, ch.page = c.page,
                ch.pages = c.pages, ch.slide = c.slide, ch.slides = c.slides,
                ch.heading = c.heading
  MERGE (ch)-[:PART_OF]->(d)
  WITH ch, c
  UNWIND range(0, size(c.sentence_ids) - 1) AS k
  MATCH (x:Sentence {id: c.sentence_ids[k]})
  MERGE (ch)-[h:HAS_SENTENCE]->(x)
  ON CREATE SET h.order = k
}
CALL (d, doc) {
  UNWIND doc.chunks AS c
  WITH c WHERE c.prev_id IS NOT NULL
  MATCH (prev:Chunk {id: c.prev_id}), (ch:Chunk {id: c.id})
  MERGE (prev)-[:NEXT]->(ch)
}
