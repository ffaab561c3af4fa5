// Local search's fallback without embeddings: entities whose name or description matches the
// question (Lucene; $query escaped and parameterised), best first.
CALL db.index.fulltext.queryNodes('entity_names', $query) YIELD node AS e, score
RETURN e.key AS key, e.name AS name, score
ORDER BY score DESC, key
LIMIT $k
