// degree over RELATED, ignoring direction (Edge et al. rank elements by degree)
MATCH (e:Entity)
SET e.degree = COUNT { (e)-[:RELATED]-() }
