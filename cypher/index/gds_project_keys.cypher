// A projection of just the entities in $keys (used to split an oversized community), in key
// order (see gds_project.cypher: Leiden depends on GDS's node numbering); the
// graphdatascience client's project.cypher wants a single RETURN gds.graph.project(...).
MATCH (a:Entity) WHERE a.key IN $keys
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity) WHERE b.key IN $keys
WITH a, r, b ORDER BY a.key, b.key
RETURN gds.graph.project($name, a, b,
       {relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']})
