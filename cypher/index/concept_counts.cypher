// Concepts and co-occurrences of the lazy index.
MATCH (k:Concept)
OPTIONAL MATCH (k)-[r:CO_OCCURS]->(:Concept)
RETURN count(DISTINCT k) AS nodes, count(r) AS relationships
