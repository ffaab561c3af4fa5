// GraphRAG communities and their reports as general-scope :Community nodes whose id is
// GraphRAG's `community` number (the id their reports cite), linked to their member entities.
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c += row.props
WITH c, row
CALL (c, row) {
  UNWIND row.members AS key
  MATCH (e:Entity {key: key})
  MERGE (e)-[:IN_COMMUNITY]->(c)
}
