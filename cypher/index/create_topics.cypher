UNWIND $topics AS t
MERGE (topic:Topic {name: t.name})
// communities: the general communities a topic is made of (TOPIC_MODE=communities), else null
SET topic.description = t.description, topic.label = t.label, topic.communities = t.communities
WITH count(*) AS n
MERGE (m:Meta {id: 'corpus'})
SET m.description = $corpus_description
