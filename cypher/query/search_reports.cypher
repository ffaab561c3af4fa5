// BM25 (Lucene) over community reports, restricted to one scope and level (ReTAG §3.3).
// $query is an escaped Lucene query passed as a parameter, never formatted into this text.
CALL db.index.fulltext.queryNodes('community_reports', $query) YIELD node, score
WHERE node.scope = $scope AND node.level = $level AND node.report_status = 'ok'
RETURN node.id AS id, node.title AS title, node.full_content AS full_content, node.findings AS findings,
       node.rank AS rank, node.level AS level,
       node.report_source IN ['composed', 'evidence'] AS composed, score
ORDER BY score DESC, id
LIMIT $top_p
