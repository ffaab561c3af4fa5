// Every community report of a scope at one level (the global-search baseline reads them all).
MATCH (c:Community {scope: $scope, level: $level})
WHERE c.report_status = 'ok'
RETURN c.id AS id, c.title AS title, c.full_content AS full_content, c.findings AS findings, c.summary AS summary,
       c.rank AS rank, c.level AS level,
       c.report_source IN ['composed', 'evidence'] AS composed
ORDER BY c.id
