// Claims for GraphRAG's covariates.parquet.
MATCH (n:Claim)
RETURN properties(n) AS props
ORDER BY n.human_readable_id, n.id
