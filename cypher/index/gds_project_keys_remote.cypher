// GDS_MODE=sessions: the remote projection of just the entities in $keys (splitting an
// oversized community), as index/gds_project_keys does in the plugin.
MATCH (a:Entity) WHERE a.key IN $keys
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity) WHERE b.key IN $keys
WITH a, r, b ORDER BY a.key, b.key  // Leiden depends on the node numbering: key order
RETURN gds.graph.project.remote(a, b, {
  relationshipType: 'RELATED',
  relationshipProperties: {weight: coalesce(r.weight, 1.0)}
})
