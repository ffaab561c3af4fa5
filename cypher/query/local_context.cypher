// Local search (Edge et al.'s local mode): the entities matching the question, their
// relationships, the community reports they belong to at $level, and text units that
// mention them. $query is escaped and parameterised.
CALL db.index.fulltext.queryNodes('entity_names', $query) YIELD node AS e, score
WITH e, score ORDER BY score DESC LIMIT $k
CALL (e) {
  OPTIONAL MATCH (e)-[r:RELATED]-(o:Entity)
  WITH r, o ORDER BY r.weight DESC LIMIT 10
  RETURN collect(CASE WHEN r IS NULL THEN null ELSE
    {source: e.name, target: o.name, description: r.description, weight: r.weight} END) AS rels
}
CALL (e) {
  OPTIONAL MATCH (e)-[:IN_COMMUNITY]->(c:Community {scope: 'general', level: $level})
  WHERE c.report_status = 'ok'
  RETURN collect({id: c.id, title: c.title, summary: c.summary}) AS reports
}
CALL (e) {
  OPTIONAL MATCH (ch:Chunk)-[:MENTIONS]->(e)
  WITH ch LIMIT 3
  RETURN collect(ch {.id, .text}) AS text_units
}
RETURN e.name AS name, e.type AS type, e.description AS description, score, rels,
       [r IN reports WHERE r.id IS NOT NULL] AS reports, text_units
