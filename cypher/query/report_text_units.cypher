// ReTAG's one-call answer with text units (RETAG_TEXT_UNIT_TOKENS): the text units behind the
// retrieved community reports ($ids), those mentioning the most of their communities' member
// entities first; at most $k. The caller ranks them further by the question (BM25).
MATCH (c:Community)<-[:IN_COMMUNITY]-(e:Entity)<-[:MENTIONS]-(ch:Chunk)
WHERE c.id IN $ids
WITH ch, count(DISTINCT e) AS members
RETURN ch.id AS id, ch.text AS text, members
ORDER BY members DESC, id
LIMIT $k
