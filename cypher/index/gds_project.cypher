// Native projection of entities (with any topic labels given) over RELATED, undirected and
// weighted: Leiden in GDS runs on undirected graphs only.
CALL gds.graph.project($name, $labels,
  {RELATED: {orientation: 'UNDIRECTED', properties: {weight: {property: 'weight', defaultValue: 1.0}}}})
YIELD nodeCount, relationshipCount
RETURN nodeCount, relationshipCount
