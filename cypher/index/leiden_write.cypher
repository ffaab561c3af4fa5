// Hierarchical Leiden on the whole entity graph; the intermediate communities of every level
// are written to each entity as `communities: long[]` (finest first, as GDS gives them).
CALL gds.leiden.write($name, {
  nodeLabels: $labels, writeProperty: 'communities', includeIntermediateCommunities: true,
  relationshipWeightProperty: 'weight', randomSeed: $seed, concurrency: 1
})
YIELD ranLevels, communityCount, modularity
RETURN ranLevels, communityCount, modularity
