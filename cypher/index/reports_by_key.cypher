// Reports already written under the given report keys (index/report_reuse.py): on a live
// community of any scope, or kept from an earlier hierarchy as a :ReportArchive node.
UNWIND $keys AS key
CALL (key) {
  MATCH (c:Community {report_key: key})
  WHERE c.report_status = 'ok'
  RETURN c, false AS archived
  UNION
  MATCH (c:ReportArchive {report_key: key})
  RETURN c, true AS archived
}
RETURN key, c.id AS id, archived,
       {title: c.title, summary: c.summary, rating: c.rating, rank: c.rank,
        rating_explanation: c.rating_explanation, findings: c.findings,
        full_content: c.full_content, report_status: c.report_status,
        report_error: c.report_error, report_source: c.report_source,
        reused_from: c.reused_from} AS report
ORDER BY key, archived, id
