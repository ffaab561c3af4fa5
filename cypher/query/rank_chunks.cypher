// BM25 (Lucene) ranking of text units for lazy search: every match, best first. $query is
// escaped and parameterised.
CALL db.index.fulltext.queryNodes('chunk_text', $query) YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
