// Concept keys of the GDS node ids a Leiden stream returned (GDS ids are the database's ids).
UNWIND $ids AS nodeId
MATCH (k:Concept) WHERE id(k) = nodeId
RETURN nodeId AS id, k.key AS key
