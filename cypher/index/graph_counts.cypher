// nodes and relationships of a scope's subgraph ($label = 'Entity' or a topic label)
MATCH (e:$($label))
OPTIONAL MATCH (e)-[r:RELATED]->(f:$($label))
RETURN count(DISTINCT e) AS nodes, count(r) AS relationships
