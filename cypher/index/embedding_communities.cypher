// Community reports as the embed stage reads them (title, summary, findings; the markdown
// of an imported report without findings), every scope; only reports that exist.
MATCH (c:Community)
WHERE c.report_status = 'ok'
RETURN c.id AS id, c.title AS title, c.summary AS summary, c.findings AS findings,
       c.full_content AS full_content, c.embedding_key AS key
