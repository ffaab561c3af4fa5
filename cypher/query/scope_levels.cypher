MATCH (c:Community {scope: $scope})
RETURN c.level AS level, count(*) AS communities,
       count(CASE WHEN c.report_status = 'ok' THEN 1 END) AS reports,
       count(CASE WHEN c.report_status = 'stale' THEN 1 END) AS stale
ORDER BY level
