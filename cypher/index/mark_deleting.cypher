// Documents ($ids) about to be removed, before any of their text units goes: the index is
// marked for rebuilding (communities, reports; topics too when $topics) and each document
// `deleting`, so that a removal cut short is finished by the next `documents delete` of it or
// the next ingest of its file (index/existing_documents, index/stale_documents).
MERGE (m:Meta {id: 'index'})
SET m.graph_dirty = true,
    m.topics_dirty = CASE WHEN $topics THEN true ELSE m.topics_dirty END
WITH m
MATCH (d:Document) WHERE d.id IN $ids
SET d.deleting = true
