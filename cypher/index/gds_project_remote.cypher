// GDS_MODE=sessions: the remote projection of entities with any of $labels over RELATED
// (made undirected by the client), as gds.graph.project.native does in the plugin.
MATCH (a:Entity) WHERE any(l IN labels(a) WHERE l IN $labels)
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity) WHERE any(l IN labels(b) WHERE l IN $labels)
WITH a, r, b ORDER BY a.key, b.key  // Leiden depends on the node numbering: key order
RETURN gds.graph.project.remote(a, b, {
  sourceNodeLabels: [l IN labels(a) WHERE l IN $labels],
  targetNodeLabels: CASE WHEN b IS NULL THEN NULL ELSE [l IN labels(b) WHERE l IN $labels] END,
  relationshipType: 'RELATED',
  relationshipProperties: {weight: coalesce(r.weight, 1.0)}
})
