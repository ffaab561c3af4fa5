// :Community nodes of one scope ('general' or a topic label), linked to their entities
// (at every level) and to their parent; a topic's communities also to their :Topic. MERGEd
// on their id: a write tried again after its commit's answer was lost (db/retry.py) adds
// nothing twice.
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c += {scope: $scope, level: row.level, size: size(row.members),
          carried: row.carried, parent: row.parent, membership: row.membership}
WITH c, row
CALL (c, row) {
  UNWIND row.members AS key
  MATCH (e:Entity {key: key})
  MERGE (e)-[:IN_COMMUNITY]->(c)
}
WITH c, row
OPTIONAL MATCH (p:Community {id: row.parent})
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (p)-[:PARENT_OF]->(c))
WITH c
OPTIONAL MATCH (t:Topic {label: $scope})
FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | MERGE (c)-[:OF_TOPIC]->(t))
