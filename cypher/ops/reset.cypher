// Empty the database: every node and relationship (documents, graph, communities, topics,
// index metadata, LLM usage counters), in batches. Constraints and indexes stay.
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS;
