// Relationships for GraphRAG's relationships.parquet (stored once per unordered pair).
MATCH (a:Entity)-[r:RELATED]->(b:Entity)
RETURN a.key AS source_key, b.key AS target_key, a.name AS source, b.name AS target,
       r.description AS description, r.weight AS weight, r.chunk_ids AS chunk_ids,
       r.graphrag_id AS graphrag_id, r.human_readable_id AS human_readable_id,
       r.graphrag_reversed AS reversed
ORDER BY r.human_readable_id, a.key, b.key
