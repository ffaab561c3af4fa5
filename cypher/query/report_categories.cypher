// For evaluation: the document category (metadata, or the file's folder) most of a report's
// entities come from.
MATCH (c:Community {scope: 'general', level: $level})<-[:IN_COMMUNITY]-(:Entity)<-[:MENTIONS]-(:Chunk)-[:PART_OF]->(d:Document)
WITH c, coalesce(d.category, split(d.path, '/')[-2]) AS category, count(*) AS n
ORDER BY c.id, n DESC
WITH c, collect(category)[0] AS category
RETURN c.id AS id, category
