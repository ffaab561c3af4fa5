// Sub-communities with a report of the given communities of one scope: the next step down
// of dynamic community selection (GraphRAG's global search option).
UNWIND $ids AS pid
MATCH (:Community {id: pid, scope: $scope})-[:PARENT_OF]->(c:Community)
WHERE c.report_status = 'ok'
RETURN pid AS parent, c.id AS id, c.title AS title, c.full_content AS full_content, c.findings AS findings,
       c.summary AS summary, c.rank AS rank, c.level AS level
ORDER BY parent, id
