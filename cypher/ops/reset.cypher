// Empty the database: every node and relationship (documents, graph, communities, topics,
// index metadata, LLM usage counters), in batches. Constraints and indexes stay. The lock
// node of this reset stays until its release: each batch commits on its own, and without
// the lock another run could start writing between two batches. $batch: nodes per
// transaction (ops/documents.py makes it smaller when one is over the transaction memory).
MATCH (n)
WHERE NOT (n:Meta AND n.id = 'lock')
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF $batch ROWS;
