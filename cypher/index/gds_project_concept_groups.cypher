// Disjoint groups of concepts ($groups: [{label, keys}]) in ONE projection, each group under
// its own node label with only the CO_OCCURS inside it (oversized leaves split together; see
// gds_project_groups.cypher).
UNWIND $groups AS grp
MATCH (a:Concept) WHERE a.key IN grp.keys
OPTIONAL MATCH (a)-[r:CO_OCCURS]->(b:Concept) WHERE b.key IN grp.keys
WITH grp, a, r, b ORDER BY a.key, b.key
WITH gds.graph.project($name, a, b,
       {sourceNodeLabels: grp.label,
        targetNodeLabels: CASE WHEN b IS NULL THEN NULL ELSE grp.label END,
        relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']}) AS g,
     collect(DISTINCT CASE WHEN b IS NULL THEN NULL ELSE grp.label END) AS linked
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount, linked
