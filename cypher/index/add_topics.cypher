// Narrower topics a split topic is replaced by (the corpus description stays as it is).
UNWIND $topics AS t
MERGE (topic:Topic {name: t.name})
SET topic.description = t.description, topic.label = t.label
