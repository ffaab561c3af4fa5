// The general graph's communities a topic may be made of (index/topic_communities.py): each
// with its level, its entities, its parent and its report's title ('' when it has none).
MATCH (c:Community {scope: 'general'})
RETURN c.id AS id, c.level AS level, COUNT { (:Entity)-[:IN_COMMUNITY]->(c) } AS size,
       COLLECT { MATCH (p:Community)-[:PARENT_OF]->(c) RETURN p.id }[0] AS parent,
       coalesce(c.title, '') AS title
ORDER BY c.level, c.id
