// Entity keys of the GDS node ids a Leiden stream returned (GDS ids are the database's ids).
UNWIND $ids AS nodeId
MATCH (e:Entity) WHERE id(e) = nodeId
RETURN nodeId AS id, e.key AS key
