// An entity's neighbourhood: its related entities, the text units (with their documents) that
// mention it, and its evidence: the sentences of the sources it rests on, each with its place.
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
CALL (e) {
  OPTIONAL MATCH evidence = (e)-[:EVIDENCE]->(:Sentence)
  RETURN collect(evidence)[..25] AS evidence
}
RETURN e, related, mentioned_in, evidence, e.type AS type, e.description AS description
