// Sentences by id, with their place and the first text unit that holds them (a report's
// findings' evidence: api/corpus.py's get_report).
UNWIND $ids AS sid
MATCH (s:Sentence {id: sid})
RETURN s.id AS id, s.text AS text, coalesce(s.location, '') AS location,
       s.document_id AS document_id, s.index AS index,
       COLLECT { MATCH (ch:Chunk)-[h:HAS_SENTENCE]->(s) RETURN ch.id ORDER BY h.order
                 LIMIT 1 }[0] AS unit
