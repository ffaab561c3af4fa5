// Topic-conditioned re-extraction: entities (by key) found again under the topic's focus.
UNWIND $rows AS row
MATCH (t:Topic {name: row.topic})
MATCH (e:Entity {key: row.key})
SET e:$(t.label)
