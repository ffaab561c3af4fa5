// Entities whose evidence changed: every text unit's description, and the types they were given.
MATCH (e:Entity {dirty: true})
OPTIONAL MATCH (:Chunk)-[m:MENTIONS]->(e)
WITH e, collect(m) AS ms
RETURN e.key AS key, e.name AS name,
       [m IN ms WHERE m.description <> '' | m.description] AS descriptions,
       [m IN ms WHERE m.type IS NOT NULL AND m.type <> 'unknown' | m.type] AS types
