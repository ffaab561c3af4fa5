// BM25 (Lucene) over text units: the plain RAG baseline. $query is escaped and parameterised.
CALL db.index.fulltext.queryNodes('chunk_text', $query) YIELD node, score
MATCH (node)-[:PART_OF]->(d:Document)
RETURN node.id AS chunk_id, node.text AS text, d.title AS title, score
ORDER BY score DESC, chunk_id
LIMIT $k
