// Archived topic-scope reports once a topic build completed (labels of topics that are gone
// included): what was worth reusing was copied. Transactions of $batch archives
// (Graph.run_batched).
MATCH (a:ReportArchive)
WHERE a.scope <> 'general'
CALL (a) { DETACH DELETE a } IN TRANSACTIONS OF $batch ROWS
