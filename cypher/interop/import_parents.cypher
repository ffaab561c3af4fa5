// The community hierarchy: parent -> child (GraphRAG level 0 is the root, like ours).
UNWIND $rows AS row
MATCH (p:Community {id: row.parent})
MATCH (c:Community {id: row.id})
MERGE (p)-[:PARENT_OF]->(c)
