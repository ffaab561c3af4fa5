// Communities of a scope without a report, or whose report failed (retried), deepest first.
MATCH (c:Community {scope: $scope})
WHERE c.report_status IS NULL OR c.report_status = 'failed'
RETURN c.id AS id, c.level AS level, c.size AS size
ORDER BY c.level DESC, c.id
