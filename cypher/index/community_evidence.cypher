// The evidence of communities' members (index/report_compose.py): for each community, each
// evidence sentence with the member entities and the member pairs it is evidence of, its text,
// place and the first text unit that holds it (what a report's finding cites).
UNWIND $ids AS cid
MATCH (c:Community {id: cid})
CALL (c) {
  MATCH (c)<-[:IN_COMMUNITY]-(e:Entity)-[:EVIDENCE]->(s:Sentence)
  RETURN collect({sentence: s.id, entity: e.key}) AS mentions
}
CALL (c) {
  MATCH (c)<-[:IN_COMMUNITY]-(a:Entity)-[r:RELATED]->(b:Entity)
  WHERE EXISTS { (b)-[:IN_COMMUNITY]->(c) }
  UNWIND coalesce(r.evidence, []) AS ids
  UNWIND split(ids, ' ') AS sid
  WITH a, b, sid WHERE sid <> ''
  RETURN collect({sentence: sid, source: a.key, target: b.key}) AS links
}
CALL (c) {
  MATCH (c)<-[:IN_COMMUNITY]-(e:Entity)<-[:ABOUT]-(:Claim)-[:EVIDENCE]->(s:Sentence)
  RETURN collect({sentence: s.id, entity: e.key}) AS claimed
}
WITH c, mentions, links, claimed,
     [x IN mentions | x.sentence] + [x IN links | x.sentence] + [x IN claimed | x.sentence] AS ids
CALL (ids) {
  UNWIND ids AS sid
  WITH DISTINCT sid
  MATCH (s:Sentence {id: sid})
  RETURN collect(s {.id, .text, .index, .document_id, location: coalesce(s.location, ''),
                    chunk: COLLECT { MATCH (ch:Chunk)-[h:HAS_SENTENCE]->(s)
                                     RETURN ch.id ORDER BY h.order LIMIT 1 }[0]}) AS sentences
}
RETURN c.id AS id, mentions, links, claimed, sentences
