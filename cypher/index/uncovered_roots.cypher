// Coverage check: root communities of the general graph none of whose entities carries one of
// the topic labels $labels (the part of the corpus no topic covers).
MATCH (c:Community {scope: 'general', level: 0})
WHERE NOT EXISTS {
  MATCH (e:Entity)-[:IN_COMMUNITY]->(c) WHERE any(l IN labels(e) WHERE l IN $labels)
}
RETURN c.id AS id, coalesce(c.title, '') AS title, c.size AS size
ORDER BY c.size DESC, c.id
