UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id
