MATCH (c:Community {id: $id})
RETURN c.title AS title, c.summary AS summary, c.rating AS rating, c.rank AS rank,
       c.rating_explanation AS rating_explanation, c.findings AS findings,
       c.full_content AS full_content, c.report_status AS report_status,
       c.report_error AS report_error
