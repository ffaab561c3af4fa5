// Archived reports of the given scopes, once their new hierarchy is reported (the ones worth
// reusing were copied). Transactions of $batch archives (Graph.run_batched).
MATCH (a:ReportArchive)
WHERE a.scope IN $scopes
CALL (a) { DETACH DELETE a } IN TRANSACTIONS OF $batch ROWS
