UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c += row.props
