// Archived topic-scope reports once a topic build completed (labels of topics that are gone
// included): what was worth reusing was copied.
MATCH (a:ReportArchive)
WHERE a.scope <> 'general'
DETACH DELETE a
