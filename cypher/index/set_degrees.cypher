// degree over RELATED, ignoring direction (Edge et al. rank elements by degree); written where
// it changed, in transactions of $batch entities (Graph.run_batched: WRITE_BATCH_SIZE, halved
// over the transaction memory)
MATCH (e:Entity)
WITH e, COUNT { (e)-[:RELATED]-() } AS degree
WHERE e.degree IS NULL OR e.degree <> degree
CALL (e, degree) { SET e.degree = degree } IN TRANSACTIONS OF $batch ROWS
