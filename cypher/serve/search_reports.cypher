// BM25 (Lucene) over every community report of a scope, any level: MCP's search_reports.
// $query is an escaped Lucene query passed as a parameter, never formatted into this text.
CALL db.index.fulltext.queryNodes('community_reports', $query) YIELD node, score
WHERE node.scope = $scope AND node.report_status = 'ok'
RETURN node.id AS id, node.title AS title, node.summary AS summary, node.level AS level, score
ORDER BY score DESC, id
LIMIT $k
