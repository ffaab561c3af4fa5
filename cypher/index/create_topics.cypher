UNWIND $topics AS t
MERGE (topic:Topic {name: t.name})
SET topic.description = t.description, topic.label = t.label
WITH count(*) AS n
MERGE (m:Meta {id: 'corpus'})
SET m.description = $corpus_description
