// Entities' evidence sentences, the ones that say most about the graph first, each with its
// place and the first text unit that holds it.
UNWIND $keys AS k
MATCH (e:Entity {key: k})
RETURN e.key AS key,
       COLLECT { MATCH (e)-[:EVIDENCE]->(s:Sentence)
                 WITH s, COUNT { (s)<-[:EVIDENCE]-() } AS weight
                 RETURN s {.id, .text, .index, .document_id, location: coalesce(s.location, ''),
                           unit: COLLECT { MATCH (ch:Chunk)-[h:HAS_SENTENCE]->(s)
                                           RETURN ch.id ORDER BY h.order LIMIT 1 }[0]}
                 ORDER BY weight DESC, s.document_id, s.index } AS sentences
