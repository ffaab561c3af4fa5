// A community with its entities, the relationships among them, and its report.
// Browser:  :param community => 0      (Community.id: the number answers cite, [Data: Reports (0)])
MATCH (c:Community {id: $community})
CALL (c) {
  OPTIONAL MATCH (e:Entity)-[m:IN_COMMUNITY]->(c)
  RETURN collect(e) AS entities, collect(m) AS memberships
}
CALL (c) {
  OPTIONAL MATCH (c)<-[:IN_COMMUNITY]-(:Entity)-[r:RELATED]->(:Entity)-[:IN_COMMUNITY]->(c)
  RETURN collect(r) AS relationships
}
OPTIONAL MATCH (parent:Community)-[up:PARENT_OF]->(c)
RETURN c, entities, memberships, relationships, parent, up,
       c.level AS level, c.title AS title, c.summary AS summary, c.rating AS rating,
       c.full_content AS report
