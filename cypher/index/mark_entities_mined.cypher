// Topics were mined from the graph as it is: every entity is marked (index/topic_basis.py);
// entities added later lack the mark. Transactions of 10,000. Run with Graph.run_script.
MATCH (e:Entity) WHERE e.topics_mined IS NULL
CALL (e) { SET e.topics_mined = true } IN TRANSACTIONS OF 10000 ROWS
