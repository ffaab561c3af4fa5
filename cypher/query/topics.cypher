MATCH (t:Topic)
OPTIONAL MATCH (corpus:Meta {id: 'corpus'})
RETURN t.name AS name, t.description AS description, t.label AS label,
       corpus.description AS corpus_description
ORDER BY t.label
