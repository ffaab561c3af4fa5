MATCH (e:Entity) WHERE e.communities IS NOT NULL
RETURN e.key AS key, e.communities AS communities
