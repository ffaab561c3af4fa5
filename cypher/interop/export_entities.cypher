// Entities for GraphRAG's entities.parquet; text units in document order.
MATCH (e:Entity)
RETURN e.key AS key, e.name AS name, e.type AS type, e.description AS description,
       e.graphrag_id AS graphrag_id, e.human_readable_id AS human_readable_id,
       e.frequency AS frequency, e.degree AS degree,
       COUNT { (e)-[:RELATED]-() } AS related,
       COLLECT { MATCH (c:Chunk)-[:MENTIONS]->(e) RETURN c.id ORDER BY c.document_id, c.index, c.id }
         AS chunk_ids
ORDER BY e.human_readable_id, e.key
