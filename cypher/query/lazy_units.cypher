// Every text unit with the general communities it belongs to (any level): through its concepts
// on a lazy index, through the entities it mentions on a full one. Lazy search ranks
// communities by their text units and tests the text units community by community.
MATCH (c:Chunk)
OPTIONAL MATCH (c)-[:HAS_CONCEPT|MENTIONS]->()-[:IN_COMMUNITY]->(k:Community {scope: 'general'})
WITH c, collect(DISTINCT k.id) AS communities
RETURN c.id AS id, c.document_id AS document, c.index AS index, communities
ORDER BY c.document_id, c.index
