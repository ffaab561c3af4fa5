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
// withheld (documents deleted since its summary, which may cite them): the descriptions of
// the remaining text units instead (up to 5, sorted), until the next ingest re-summarises it
RETURN i, e.key AS key, e.name AS name, e.type AS type,
       CASE WHEN e.withheld
            THEN reduce(s = '', d IN COLLECT {
                   MATCH (:Chunk)-[m:MENTIONS]->(e) WHERE trim(coalesce(m.description, '')) <> ''
                   RETURN DISTINCT trim(m.description) AS x ORDER BY x LIMIT 5 } |
                   s + CASE WHEN s = '' THEN '' ELSE ' ' END + d)
            ELSE e.description END AS description,
       coalesce(e.withheld, false) AS withheld, coalesce(e.degree, 0) AS degree, reports
ORDER BY i
