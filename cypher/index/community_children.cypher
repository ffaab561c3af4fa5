// Sub-communities of the given communities, biggest first, with their reports.
UNWIND $ids AS cid
MATCH (:Community {id: cid})-[:PARENT_OF]->(s:Community)
RETURN cid AS parent, s.id AS id, s.size AS size, s.title AS title,
       s.full_content AS full_content, s.report_status AS status, s.carried AS carried,
       [(s)<-[:IN_COMMUNITY]-(e:Entity) | e.key] AS members,
       {title: s.title, summary: s.summary, rating: s.rating, rank: s.rank,
        rating_explanation: s.rating_explanation, findings: s.findings,
        full_content: s.full_content, report_status: s.report_status,
        report_error: s.report_error} AS report
ORDER BY parent, size DESC, id
