// Text units' sentences in order, with the unit's text and place (a unit loaded before
// sentences existed has none: the quote cuts its text).
UNWIND $ids AS uid
MATCH (c:Chunk {id: uid})
RETURN c.id AS unit, c.text AS text, coalesce(c.location, '') AS location,
       COLLECT { MATCH (c)-[h:HAS_SENTENCE]->(s:Sentence)
                 RETURN s {.id, .text, .index, .document_id,
                           location: coalesce(s.location, '')} ORDER BY h.order } AS sentences
