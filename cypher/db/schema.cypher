// Constraints and indexes; every statement idempotent.
CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE;
CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE;
CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (c:Claim) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT sentence_id IF NOT EXISTS FOR (s:Sentence) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT concept_key IF NOT EXISTS FOR (k:Concept) REQUIRE k.key IS UNIQUE;
CREATE CONSTRAINT community_id IF NOT EXISTS FOR (c:Community) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT topic_name IF NOT EXISTS FOR (t:Topic) REQUIRE t.name IS UNIQUE;
CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (m:Meta) REQUIRE m.id IS UNIQUE;
CREATE INDEX document_path IF NOT EXISTS FOR (d:Document) ON (d.path);
CREATE INDEX chunk_extracted IF NOT EXISTS FOR (c:Chunk) ON (c.extracted);
CREATE INDEX entity_dirty IF NOT EXISTS FOR (e:Entity) ON (e.dirty);
CREATE INDEX community_scope_level IF NOT EXISTS FOR (c:Community) ON (c.scope, c.level);
CREATE INDEX community_report_key IF NOT EXISTS FOR (c:Community) ON (c.report_key);
CREATE INDEX archive_report_key IF NOT EXISTS FOR (a:ReportArchive) ON (a.report_key);
CREATE INDEX archive_scope IF NOT EXISTS FOR (a:ReportArchive) ON (a.scope);
CREATE FULLTEXT INDEX community_reports IF NOT EXISTS FOR (c:Community) ON EACH [c.title, c.summary, c.full_content]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.description]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
