MATCH (a:Entity)-[r:RELATED {dirty: true}]->(b:Entity)
RETURN elementId(r) AS rid, a.name + ' -> ' + b.name AS name, r.descriptions AS descriptions,
       r.strengths AS strengths
