// Reports built on demand on a lazy index: stored once (marked lazy), reused by every query.
UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c += row.props, c.lazy = true
