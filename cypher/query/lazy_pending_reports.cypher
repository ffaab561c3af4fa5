// Communities of the general scope at $levels still without a report (a lazy index builds
// them when a query needs them), with their concepts (most text units first) and text units
// (most of the community's concepts first).
MATCH (k:Community {scope: 'general'})
WHERE k.level IN $levels AND coalesce(k.report_status, '') <> 'ok'
  AND EXISTS { (:Concept)-[:IN_COMMUNITY]->(k) }
CALL (k) {
  MATCH (n:Concept)-[:IN_COMMUNITY]->(k)
  WITH n, COUNT { (:Chunk)-[:HAS_CONCEPT]->(n) } AS units
  ORDER BY units DESC, n.key
  RETURN collect({name: n.name, units: units})[..$max_concepts] AS concepts
}
CALL (k) {
  MATCH (n:Concept)-[:IN_COMMUNITY]->(k)
  MATCH (c:Chunk)-[:HAS_CONCEPT]->(n)
  WITH c, count(DISTINCT n) AS hits
  ORDER BY hits DESC, c.id
  MATCH (c)-[:PART_OF]->(d:Document)
  RETURN collect({id: c.id, title: d.title, text: c.text})[..$max_units] AS units
}
RETURN k.id AS id, k.level AS level, concepts, units
ORDER BY k.level DESC, k.id
