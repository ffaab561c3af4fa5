// Empty the database: every node and relationship (documents, graph, communities, topics,
// index metadata, LLM usage counters), in batches. Constraints and indexes stay. The lock
// node of this reset stays until its release: each batch commits on its own, and without
// the lock another run could start writing between two batches.
MATCH (n)
WHERE NOT (n:Meta AND n.id = 'lock')
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS;
