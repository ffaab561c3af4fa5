// A lazy index becomes a full one (`ingest --full` on a lazy graph; index/lazy_index.py
// upgrade_to_full): the concepts and their co-occurrences go, the text units lose their
// `concepts_done` mark (the full extraction picks up every text unit without `extracted`), and
// only then is the graph marked full and dirty (its concept communities are rebuilt from
// entities): an interrupted upgrade is still a lazy graph, and the next `ingest --full` redoes
// it. Run with Graph.run_script (an auto-commit session).
MATCH (k:Concept)
CALL (k) { DETACH DELETE k } IN TRANSACTIONS OF 1000 ROWS;
MATCH (c:Chunk) WHERE c.concepts_done IS NOT NULL
CALL (c) { REMOVE c.concepts_done } IN TRANSACTIONS OF 1000 ROWS;
MERGE (m:Meta {id: 'index'})
SET m.index_method = 'full', m.graph_dirty = true, m.topics_dirty = true
