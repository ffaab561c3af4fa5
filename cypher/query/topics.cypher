// Topics the classifier may choose: only those with a subgraph (entities carrying their label)
// and at least one report that is not stale (documents deleted since: members changed); with
// the share of all entities their subgraph holds (a topic holding most of them narrows nothing).
CALL { MATCH (e:Entity) RETURN count(e) AS total }
MATCH (t:Topic)
WHERE EXISTS { MATCH (c:Community {scope: t.label}) WHERE c.report_status = 'ok' }
CALL { WITH t MATCH (e:Entity) WHERE t.label IN labels(e) RETURN count(e) AS entities }
WITH t, total, entities WHERE entities > 0
OPTIONAL MATCH (corpus:Meta {id: 'corpus'})
RETURN t.name AS name, t.description AS description, t.label AS label,
       corpus.description AS corpus_description, entities,
       toFloat(entities) / total AS share
ORDER BY t.label
