// Before the general hierarchy is rebuilt, or an incremental topic build: topic communities
// and the topic labels on entities go; topics, their descriptions and the text units'
// ABOUT_TOPIC labels stay (index/topic_basis.py: the next topic build keeps them when the
// mined reports did not change materially). Topic communities with a report are archived as in
// index/archive_communities: the next topic build keeps their ids and reports where its
// communities have the same members.
MATCH (t:Topic)
OPTIONAL MATCH (e:Entity) WHERE t.label IN labels(e)
REMOVE e:$(t.label);
MATCH (a:ReportArchive)
WHERE a.scope <> 'general' AND EXISTS { MATCH (:Community {id: a.id}) }
DELETE a;
MATCH (c:Community)-[r]-()
WHERE c.scope <> 'general' AND c.report_status = 'ok' AND c.report_key IS NOT NULL
DELETE r;
MATCH (c:Community)
WHERE c.scope <> 'general' AND c.report_status = 'ok' AND c.report_key IS NOT NULL
REMOVE c:Community SET c:ReportArchive;
MATCH (c:Community) WHERE c.scope <> 'general' DETACH DELETE c;
