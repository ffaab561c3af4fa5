// The topics of the last build, the corpus description and the mining basis
// (index/topic_basis.py).
OPTIONAL MATCH (b:Meta {id: 'topics'})
OPTIONAL MATCH (corpus:Meta {id: 'corpus'})
OPTIONAL MATCH (t:Topic)
WITH b, corpus, t ORDER BY t.label
RETURN b {.*} AS basis, corpus.description AS corpus_description,
       [x IN collect(t) | {name: x.name, description: x.description, label: x.label}] AS topics
