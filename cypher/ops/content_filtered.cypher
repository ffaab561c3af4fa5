// Items the endpoint's content filter blocked, with the error each keeps (it names the
// categories the filter flagged): failed text units and failed community reports.
MATCH (c:Chunk) WHERE c.error STARTS WITH 'content_filter'
RETURN c.error AS error
UNION ALL
MATCH (k:Community) WHERE k.report_status = 'failed' AND k.report_error STARTS WITH 'content_filter'
RETURN k.report_error AS error
