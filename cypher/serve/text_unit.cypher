// One text unit with its document (a citation of kind text_unit, opened on the page), its
// place, and its sentences in order (the evidence the graph's elements rest on).
MATCH (c:Chunk {id: $id})-[:PART_OF]->(d:Document)
RETURN c.id AS id, c.text AS text, d.id AS document_id, d.title AS title, d.path AS path,
       c.location AS location,
       COLLECT { MATCH (c)-[h:HAS_SENTENCE]->(s:Sentence)
                 RETURN s {.id, .text, location: coalesce(s.location, ''), .page,
                           entities: COLLECT { MATCH (e:Entity)-[:EVIDENCE]->(s)
                                               RETURN e.name ORDER BY e.name }}
                 ORDER BY h.order } AS sentences
