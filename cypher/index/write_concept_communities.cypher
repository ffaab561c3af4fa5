// Lazy index: :Community nodes of the general scope over concepts (at every level), linked to
// their parent, as write_communities does for entities. MERGEd on their id: a write tried
// again after its commit's answer was lost (db/retry.py) adds nothing twice.
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c += {scope: 'general', level: row.level, size: size(row.members),
          carried: row.carried, parent: row.parent}
WITH c, row
CALL (c, row) {
  UNWIND row.members AS key
  MATCH (k:Concept {key: key})
  MERGE (k)-[:IN_COMMUNITY]->(c)
}
WITH c, row
OPTIONAL MATCH (p:Community {id: row.parent})
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (p)-[:PARENT_OF]->(c))
