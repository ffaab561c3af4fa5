// Local search: claims about the seeded entities ($keys), at most $per_entity each.
UNWIND $keys AS key
MATCH (n:Claim)-[:ABOUT]->(e:Entity {key: key})
WITH e, n ORDER BY n.id
WITH e, collect(n)[..$per_entity] AS claims
UNWIND claims AS n
RETURN e.key AS key, e.name AS entity, n.object AS object, n.type AS type,
       n.status AS status, n.description AS description
