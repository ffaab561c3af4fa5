// A scope's communities go before its hierarchy is rebuilt (index/communities.py). Those with
// a report are kept as :ReportArchive nodes - no :Community label, no relationships, so no
// query sees them - until the new hierarchy is reported: a new community with the same level
// and members takes the archived one's id (a citation keeps pointing at the same community),
// and the same members with the same descriptions take its report (index/report_reuse.py).
// An archive superseded by a live community of the same id goes first. Transactions of $batch
// communities (Graph.run_batched, auto-commit: WRITE_BATCH_SIZE, halved over the transaction
// memory).
MATCH (a:ReportArchive {scope: $scope})
WHERE EXISTS { MATCH (:Community {id: a.id}) }
CALL (a) { DELETE a } IN TRANSACTIONS OF $batch ROWS;
MATCH (c:Community {scope: $scope})
WHERE c.report_status = 'ok' AND c.report_key IS NOT NULL
CALL (c) {
  MATCH (c)-[r]-()
  DELETE r
} IN TRANSACTIONS OF $batch ROWS;
MATCH (c:Community {scope: $scope})
WHERE c.report_status = 'ok' AND c.report_key IS NOT NULL
CALL (c) { REMOVE c:Community SET c:ReportArchive } IN TRANSACTIONS OF $batch ROWS;
MATCH (c:Community {scope: $scope})
CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF $batch ROWS
