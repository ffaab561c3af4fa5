// the index kind first: a lazy index has concepts where a full one has entities
OPTIONAL MATCH (m:Meta {id: 'index'})
// findings of model-written reports dropped as unsupported by their context (index/report_grounding)
CALL { MATCH (c:Community) WHERE c.unsupported_findings IS NOT NULL
       RETURN sum(size(c.unsupported_findings)) AS unsupported_findings }
RETURN CASE WHEN m.index_method IS NOT NULL THEN m.index_method
            WHEN EXISTS { (:Entity) } THEN 'full'
            WHEN EXISTS { (:Concept) } THEN 'lazy' END AS index_method,
       COUNT { (:Document) } AS documents,
       COUNT { (:Chunk) } AS text_units,
       COUNT { (c:Chunk) WHERE c.extracted = true } AS text_units_extracted,
       COUNT { (c:Chunk) WHERE c.error IS NOT NULL } AS text_units_failed,
       COUNT { (:Entity) } AS entities,
       COUNT { ()-[:RELATED]->() } AS relationships,
       COUNT { (:Concept) } AS concepts,
       COUNT { ()-[:CO_OCCURS]->() } AS co_occurrences,
       COUNT { (:Claim) } AS claims,
       COUNT { (:Community {scope: 'general'}) } AS communities,
       COUNT { (c:Community {scope: 'general'}) WHERE c.report_status = 'ok' } AS community_reports,
       // topic scopes apart; the failed / stale / composed / reused / embedded counts below
       // are over every scope
       COUNT { (c:Community) WHERE c.scope <> 'general' } AS topic_communities,
       COUNT { (c:Community) WHERE c.scope <> 'general' AND c.report_status = 'ok' }
         AS topic_reports,
       COUNT { (c:Community) WHERE c.report_status = 'failed' } AS failed_reports,
       COUNT { (c:Community) WHERE c.report_status = 'stale' } AS stale_reports,
       COUNT { (c:Community) WHERE c.report_source = 'composed' } AS composed_reports,
       COUNT { (c:Community) WHERE c.report_source = 'evidence' } AS evidence_reports,
       COUNT { (:Sentence) } AS sentences,
       COUNT { (c:Community) WHERE c.reused_from IS NOT NULL } AS reused_reports,
       unsupported_findings,
       COUNT { (:Topic) } AS topics,
       // how the topics were built (TOPIC_MODE); topics built before it was stored were mined
       CASE WHEN EXISTS { (:Topic) } THEN coalesce(m.topics_mode, 'assign') END AS topic_mode,
       COUNT { (c:Chunk) WHERE c.embedding IS NOT NULL } AS text_units_embedded,
       COUNT { (e:Entity) WHERE e.embedding IS NOT NULL } AS entities_embedded,
       COUNT { (c:Community) WHERE c.embedding IS NOT NULL } AS reports_embedded,
       m.embedding_model AS embedding_model
