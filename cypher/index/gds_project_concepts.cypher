// The concept graph over CO_OCCURS, undirected and weighted, projected in key order (Leiden's
// result depends on GDS's node numbering; see gds_project.cypher).
MATCH (a:Concept)
OPTIONAL MATCH (a)-[r:CO_OCCURS]-(b:Concept) WHERE a.key < b.key
WITH a, r, b ORDER BY a.key, b.key
RETURN gds.graph.project($name, a, b,
       {sourceNodeLabels: 'Concept',
        targetNodeLabels: CASE WHEN b IS NULL THEN NULL ELSE 'Concept' END,
        relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']})
