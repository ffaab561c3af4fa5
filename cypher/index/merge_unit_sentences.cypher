// The sentences of text units loaded before sentences existed, cut from their own text at
// extraction (index/sentences.py): created once, in order, beside their elements.
// $units: [{chunk_id, sentences: [{id, text, index, location, page}]}]
UNWIND $units AS u
MATCH (c:Chunk {id: u.chunk_id})
UNWIND range(0, size(u.sentences) - 1) AS k
WITH c, u.sentences[k] AS s, k
MERGE (x:Sentence {id: s.id})
ON CREATE SET x.text = s.text, x.index = s.index, x.location = s.location, x.page = s.page,
              x.document_id = c.document_id
MERGE (c)-[h:HAS_SENTENCE]->(x)
ON CREATE SET h.order = k
