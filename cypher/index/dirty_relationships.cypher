// Relationships whose evidence changed: every text unit's description and strength, and the
// evidence sentences (the ids in r.evidence, space-separated per text unit).
MATCH (a:Entity)-[r:RELATED {dirty: true}]->(b:Entity)
RETURN elementId(r) AS rid, a.name + ' -> ' + b.name AS name, r.descriptions AS descriptions,
       r.strengths AS strengths,
       COLLECT { UNWIND coalesce(r.evidence, []) AS ids
                 UNWIND split(ids, ' ') AS sid
                 MATCH (s:Sentence {id: sid})
                 RETURN DISTINCT s {.id, .text, .index, .document_id,
                                    weight: COUNT { (s)<-[:EVIDENCE]-() }} } AS evidence
