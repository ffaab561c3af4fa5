MATCH (:Community {id: $id})-[:PARENT_OF]->(s:Community)
RETURN s.id AS id, s.size AS size, s.title AS title, s.full_content AS full_content,
       s.report_status AS status, s.carried AS carried,
       [(s)<-[:IN_COMMUNITY]-(e:Entity) | e.key] AS members
ORDER BY s.size DESC, s.id
