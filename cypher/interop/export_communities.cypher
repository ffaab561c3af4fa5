// General-scope communities (with their reports) for communities / community_reports.parquet.
MATCH (c:Community {scope: 'general'})
RETURN properties(c) AS props,
       COLLECT { MATCH (e:Entity)-[:IN_COMMUNITY]->(c) RETURN e.key ORDER BY e.key } AS member_keys,
       COLLECT { MATCH (c)-[:PARENT_OF]->(s:Community) RETURN s.id ORDER BY s.id } AS children
ORDER BY c.level, c.id
