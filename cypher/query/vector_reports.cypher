// The top-p community reports of one scope and level nearest to $vector (cosine), the shape
// of search_reports (BM25). The index spans every scope and level: $k (the caller passes the
// number of embedded communities) makes the search exhaustive before the filter.
CALL db.index.vector.queryNodes('community_embedding', $k, $vector) YIELD node, score
WHERE node.scope = $scope AND node.level = $level AND node.report_status = 'ok'
RETURN node.id AS id, node.title AS title, node.full_content AS full_content, node.findings AS findings,
       node.rank AS rank, node.level AS level,
       node.report_source IN ['composed', 'evidence'] AS composed, score
ORDER BY score DESC, id
LIMIT $top_p
