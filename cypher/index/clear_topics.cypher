// Remove topics, their labels on entities and text units, their mining basis and their
// communities (the general graph stays). Topic communities with a report are archived as in
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
MATCH (c:Chunk) WHERE c.topics_assigned IS NOT NULL REMOVE c.topics_assigned;
MATCH (m:Meta {id: 'topics'}) DELETE m;
MATCH (t:Topic) DETACH DELETE t;
