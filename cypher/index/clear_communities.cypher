// Every document deleted (index/pipeline.py): the communities of every scope and the archived
// reports go too - report texts of deleted documents are not kept for a reuse that would need
// the same documents back. Run after index/clear_topics, with Graph.run_batched (auto-commit,
// transactions of $batch).
MATCH (a:ReportArchive)
CALL (a) { DELETE a } IN TRANSACTIONS OF $batch ROWS;
MATCH (c:Community)
CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF $batch ROWS
