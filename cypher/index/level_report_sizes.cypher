// The general scope's report text per level (characters), for topic mining to read the
// cheapest level that covers every entity (index/topics.py).
MATCH (c:Community {scope: 'general'})
WHERE c.report_status = 'ok'
RETURN c.level AS level, count(*) AS reports, sum(size(c.full_content)) AS chars
ORDER BY level
