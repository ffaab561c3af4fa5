// BM25 (Lucene) over text units: the plain RAG baseline. $query is escaped and parameterised.
CALL db.index.fulltext.queryNodes('chunk_text', $query) YIELD node, score
MATCH (node)-[:PART_OF]->(d:Document)
RETURN node.id AS text_unit_id, node.text AS text, d.title AS title, score
ORDER BY score DESC, text_unit_id
LIMIT $k
