// Text units for GraphRAG's text_units.parquet.
MATCH (c:Chunk)
RETURN c.id AS id, c.human_readable_id AS human_readable_id, c.text AS text,
       c.n_tokens AS n_tokens, c.index AS index,
       COLLECT { MATCH (c)-[:PART_OF]->(d:Document) RETURN coalesce(d.graphrag_id, d.id) }
         AS document_ids,
       COLLECT { MATCH (c)-[:MENTIONS]->(e:Entity) RETURN e.key ORDER BY e.key } AS entity_keys,
       COLLECT { MATCH (c)-[:HAS_CLAIM]->(cl:Claim) RETURN cl.id ORDER BY cl.id } AS claim_ids
ORDER BY c.document_id, c.index, c.id
