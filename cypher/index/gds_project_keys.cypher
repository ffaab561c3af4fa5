// A projection of just the entities in $keys (used to split an oversized community), in key
// order (see gds_project.cypher: Leiden depends on GDS's node numbering).
MATCH (a:Entity) WHERE a.key IN $keys
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity) WHERE b.key IN $keys
WITH a, r, b ORDER BY a.key, b.key
WITH gds.graph.project($name, a, b,
       {relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount
