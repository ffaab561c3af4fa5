// Communities' raw context: their entities, the relationships inside each (with the combined
// degree of their endpoints and their weight, for ranking) and the claims about their entities
// (with their evidence: the text units stating them).
UNWIND $ids AS cid
MATCH (c:Community {id: cid})
CALL (c) {
  MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
  RETURN collect({key: e.key, name: e.name, description: e.description, degree: e.degree}) AS entities
}
CALL (c) {
  // b's membership as a predicate: written as one pattern, the planner may join the two
  // member sets (memberships x memberships), which ran out of memory at 16x the BBC sample
  MATCH (c)<-[:IN_COMMUNITY]-(a:Entity)-[r:RELATED]->(b:Entity)
  WHERE EXISTS { (b)-[:IN_COMMUNITY]->(c) }
  RETURN collect({source_key: a.key, target_key: b.key, source: a.name, target: b.name,
                  description: r.description, combined_degree: a.degree + b.degree,
                  weight: r.weight}) AS relationships
}
CALL (c) {
  MATCH (c)<-[:IN_COMMUNITY]-(a:Entity)<-[:ABOUT]-(cl:Claim)
  RETURN collect({key: a.key, entity: a.name, type: cl.type, status: cl.status,
                  description: cl.description,
                  evidence: COUNT { (cl)<-[:HAS_CLAIM]-(:Chunk) }}) AS claims
}
RETURN c.id AS id, entities, relationships, claims
