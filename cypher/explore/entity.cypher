// An entity's neighbourhood: its related entities, and the text units (with their documents)
// that mention it.
// Browser:  :param entity => 'scrooge'      (its key, the lower-cased name, or its exact name)
MATCH (e:Entity)
WHERE e.key = toLower(trim($entity)) OR e.name = $entity
CALL (e) {
  OPTIONAL MATCH related = (e)-[:RELATED]-(:Entity)
  RETURN collect(related)[..50] AS related
}
CALL (e) {
  OPTIONAL MATCH mentioned = (:Document)<-[:PART_OF]-(:Chunk)-[:MENTIONS]->(e)
  RETURN collect(mentioned)[..25] AS mentioned_in
}
RETURN e, related, mentioned_in, e.type AS type, e.description AS description
