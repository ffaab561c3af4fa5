// One community report with its entities (the page's and MCP's get_report).
MATCH (c:Community {id: $id})
WHERE c.report_status = 'ok'
CALL (c) {
  OPTIONAL MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
  WITH e ORDER BY e.degree DESC, e.name LIMIT $max_entities
  RETURN collect(e {.name, .type, .description}) AS entities
}
RETURN c.id AS id, c.title AS title, c.summary AS summary, c.level AS level, c.scope AS scope,
       c.rating AS rating, c.rating_explanation AS rating_explanation, c.findings AS findings,
       entities
