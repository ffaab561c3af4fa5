// Documents for GraphRAG's documents.parquet, with their text units in order.
MATCH (d:Document)
RETURN properties(d) AS props, toString(d.created_at) AS created_at,
       COLLECT { MATCH (d)<-[:PART_OF]-(c:Chunk) RETURN c.id ORDER BY c.index, c.id } AS chunk_ids
ORDER BY d.human_readable_id, d.id
