// Documents ($ids) whose text units are gone (index/remove_units), then the lazy index's
// concepts no remaining text unit has; transactions of $batch (Graph.run_batched). The
// entities' degrees follow (index/set_degrees).
MATCH (d:Document) WHERE d.id IN $ids
CALL (d) { DETACH DELETE d } IN TRANSACTIONS OF $batch ROWS;
MATCH (k:Concept) WHERE NOT EXISTS { (:Chunk)-[:HAS_CONCEPT]->(k) }
CALL (k) { DETACH DELETE k } IN TRANSACTIONS OF $batch ROWS;
