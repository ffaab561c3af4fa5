// One topic removed: its label off its entities, its node and assignments gone (a split topic,
// replaced by narrower ones; it has no communities yet).
MATCH (t:Topic {name: $name})
OPTIONAL MATCH (e:Entity) WHERE t.label IN labels(e)
REMOVE e:$(t.label)
WITH DISTINCT t
DETACH DELETE t
