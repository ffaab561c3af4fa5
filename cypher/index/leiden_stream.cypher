// Leiden over the nodes with $labels (a topic subgraph is a label filter on one projection).
CALL gds.leiden.stream($name, {
  nodeLabels: $labels, includeIntermediateCommunities: $intermediate,
  relationshipWeightProperty: 'weight', randomSeed: $seed, concurrency: 1
})
YIELD nodeId, communityId, intermediateCommunityIds
RETURN gds.util.asNode(nodeId).key AS key,
       coalesce(intermediateCommunityIds, [communityId]) AS communities
