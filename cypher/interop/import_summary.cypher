// Per level of the general scope: communities, reports and entities covered.
MATCH (c:Community {scope: 'general'})
RETURN c.level AS level, count(c) AS communities,
       count(CASE WHEN c.report_status = 'ok' THEN 1 END) AS reports,
       sum(COUNT { (:Entity)-[:IN_COMMUNITY]->(c) }) AS memberships
ORDER BY level
