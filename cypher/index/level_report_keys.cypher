// The general scope's reports at one level: key and size, the basis topic mining read
// (index/topic_basis.py).
MATCH (c:Community {scope: 'general', level: $level})
WHERE c.report_status = 'ok'
RETURN c.report_key AS key, size(c.full_content) AS chars
ORDER BY key
