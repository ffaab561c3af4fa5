// Text units not yet extracted (a rerun or resume picks up exactly these), each with the
// sentences it holds, in order (none for a text unit loaded before sentences existed).
MATCH (c:Chunk) WHERE coalesce(c.extracted, false) = false
RETURN c.id AS id, c.text AS text, coalesce(c.location, '') AS location,
       COLLECT { MATCH (c)-[h:HAS_SENTENCE]->(s:Sentence)
                 RETURN s {.id, .text, .index, location: coalesce(s.location, ''), .page}
                 ORDER BY h.order } AS sentences
ORDER BY c.document_id, c.index
