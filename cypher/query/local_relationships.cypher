// Local search: relationships of the seeded entities ($keys), for GraphRAG's ranking
// (in-network first, then out-network by links to the seeds and rank). Each seed gives those
// to other seeds first, then its heaviest, at most $per_entity; rank = the degrees' sum.
UNWIND $keys AS key
MATCH (s:Entity {key: key})-[r:RELATED]-(o:Entity)
WITH s, r, o.key IN $keys AS inside
ORDER BY inside DESC, r.weight DESC
WITH s, collect(r)[..$per_entity] AS picked
UNWIND picked AS r
WITH DISTINCT r
MATCH (a:Entity)-[r]->(b:Entity)
RETURN a.key AS source_key, a.name AS source, b.key AS target_key, b.name AS target,
       // withheld (as query/local_entities): the remaining text units' descriptions
       CASE WHEN r.withheld
            THEN reduce(s = '', d IN [x IN r.descriptions WHERE trim(coalesce(x, '')) <> ''][..5] |
                        s + CASE WHEN s = '' THEN '' ELSE ' ' END + trim(d))
            ELSE r.description END AS description,
       coalesce(r.withheld, false) AS withheld, r.weight AS weight,
       coalesce(a.degree, 0) + coalesce(b.degree, 0) AS rank
