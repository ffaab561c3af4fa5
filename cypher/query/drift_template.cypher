// DRIFT's hypothetical answer copies the shape of a report: the highest-ranked one at $level.
MATCH (c:Community {scope: 'general', level: $level})
WHERE c.report_status = 'ok' AND c.full_content IS NOT NULL
RETURN c.full_content AS full_content
ORDER BY c.rank DESC, c.id
LIMIT 1
