// Entities with any of $labels over RELATED between them, undirected and weighted (Leiden in
// GDS runs on undirected graphs only). Projected in key order: GDS numbers nodes as they
// come and Leiden's result depends on that numbering; a native projection would number them
// in creation order, which differs between runs (so would the communities of one graph).
// The graphdatascience client's project.cypher wants a single RETURN gds.graph.project(...).
MATCH (a:Entity) WHERE any(l IN labels(a) WHERE l IN $labels)
OPTIONAL MATCH (a)-[r:RELATED]-(b:Entity)
  WHERE a.key < b.key AND any(l IN labels(b) WHERE l IN $labels)
WITH a, r, b ORDER BY a.key, b.key
RETURN gds.graph.project($name, a, b,
       {sourceNodeLabels: [l IN labels(a) WHERE l IN $labels],
        targetNodeLabels: CASE WHEN b IS NULL THEN NULL
                               ELSE [l IN labels(b) WHERE l IN $labels] END,
        relationshipProperties: {weight: coalesce(r.weight, 1.0)}},
       {undirectedRelationshipTypes: ['*']})
