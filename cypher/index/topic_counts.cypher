MATCH (t:Topic)
OPTIONAL MATCH (c:Community {scope: t.label})
WITH t, count(c) AS communities, count(CASE WHEN c.report_status = 'ok' THEN 1 END) AS reports,
     count(c.reused_from) AS reused
RETURN t.name AS name, t.label AS label, COUNT { MATCH (e:Entity) WHERE t.label IN labels(e) } AS entities,
       communities, reports, reused
ORDER BY t.label
