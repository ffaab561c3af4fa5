// One projection of several disjoint groups of entities, each group under its own node label
// ($groups: [{label, keys}]) with only the relationships inside the group: Leiden filtered by
// a group's label then sees exactly that group's subgraph (oversized leaves split together).
UNWIND $groups AS grp
MATCH (a:Entity) WHERE a.key IN grp.keys
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity) WHERE b.key IN grp.keys
WITH grp, a, r, b ORDER BY a.key, b.key  // Leiden depends on GDS's node numbering: key order
WITH gds.graph.project($name, a, b,
       {sourceNodeLabels: grp.label,
        targetNodeLabels: CASE WHEN b IS NULL THEN NULL ELSE grp.label END,
        relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']}) AS g,
     collect(DISTINCT CASE WHEN b IS NULL THEN NULL ELSE grp.label END) AS linked
// linked: the labels of the groups with a relationship inside (Leiden needs one)
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount, linked
