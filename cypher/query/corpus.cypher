OPTIONAL MATCH (m:Meta {id: 'corpus'})
RETURN m.description AS description
