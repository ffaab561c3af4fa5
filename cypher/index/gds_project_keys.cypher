// A projection of just the entities in $keys (used to split an oversized community); the
// graphdatascience client's project.cypher wants a single RETURN gds.graph.project(...).
MATCH (a:Entity) WHERE a.key IN $keys
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity) WHERE b.key IN $keys
RETURN gds.graph.project($name, a, b,
       {relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']})
