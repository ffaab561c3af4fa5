// The level-0 map of the corpus: the root communities (scope 'general'), their report titles and
// their five highest-degree entities; Browser's "Connect result nodes" draws the RELATED links
// between the entities shown, so bridges between communities stand out.
// Browser:  no parameter
MATCH (c:Community {scope: 'general', level: 0})
CALL (c) {
  MATCH (e:Entity)-[m:IN_COMMUNITY]->(c)
  RETURN e, m
  ORDER BY e.degree DESC, e.key
  LIMIT 5
}
RETURN c, collect(e) AS top_entities, collect(m) AS memberships, c.id AS id, c.title AS title,
       c.rating AS rating, c.size AS size
ORDER BY rating DESC, id
