// Local search: the seeded entities in seed order ($keys, best first) with their number of
// relationships and the community reports they belong to at $level (GraphRAG's mixed
// context ranks reports by how many seeded entities they hold, then by rank).
UNWIND range(0, size($keys) - 1) AS i
MATCH (e:Entity {key: $keys[i]})
CALL (e) {
  OPTIONAL MATCH (e)-[:IN_COMMUNITY]->(c:Community {scope: 'general', level: $level})
  WHERE c.report_status = 'ok'
  RETURN collect(c {.id, .title, .summary, .rank}) AS reports
}
RETURN i, e.key AS key, e.name AS name, e.type AS type, e.description AS description,
       coalesce(e.degree, 0) AS degree, reports
ORDER BY i
