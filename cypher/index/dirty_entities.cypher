// Entities whose evidence changed: every text unit's description, the types they were given,
// and the evidence sentences (with the number of elements each is evidence of: a sentence
// that says most about the graph first, index/assemble.py).
MATCH (e:Entity {dirty: true})
OPTIONAL MATCH (:Chunk)-[m:MENTIONS]->(e)
WITH e, collect(m) AS ms
RETURN e.key AS key, e.name AS name,
       [m IN ms WHERE m.description <> '' | m.description] AS descriptions,
       [m IN ms WHERE m.type IS NOT NULL AND m.type <> 'unknown' | m.type] AS types,
       COLLECT { MATCH (e)-[:EVIDENCE]->(s:Sentence)
                 RETURN s {.id, .text, .index, .document_id,
                           weight: COUNT { (s)<-[:EVIDENCE]-() }} } AS evidence
