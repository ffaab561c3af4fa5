// Communities of a scope still without a report, deepest level first (bottom-up).
MATCH (c:Community {scope: $scope})
WHERE c.report_status IS NULL
RETURN c.id AS id, c.level AS level, c.size AS size
ORDER BY c.level DESC, c.id
