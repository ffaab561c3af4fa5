// What a topic is about, for splitting it: the general graph's reports at $level of the
// communities holding the most of its entities (title and summary), most first.
MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community {scope: 'general', level: $level})
WHERE $label IN labels(e) AND c.report_status = 'ok'
WITH c, count(e) AS held
RETURN c.id AS id, coalesce(c.title, '') AS title, coalesce(c.summary, '') AS summary, held
ORDER BY held DESC, c.id
LIMIT $limit
