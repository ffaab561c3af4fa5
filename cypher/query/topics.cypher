// Topics the classifier may choose: only those with a subgraph (entities carrying their label)
// and at least one report that is not stale (documents deleted since: members changed).
MATCH (t:Topic)
WHERE EXISTS { MATCH (e:Entity) WHERE t.label IN labels(e) }
  AND EXISTS { MATCH (c:Community {scope: t.label}) WHERE c.report_status = 'ok' }
OPTIONAL MATCH (corpus:Meta {id: 'corpus'})
RETURN t.name AS name, t.description AS description, t.label AS label,
       corpus.description AS corpus_description
ORDER BY t.label
