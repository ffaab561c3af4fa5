// Archived reports of the given scopes, once their new hierarchy is reported (the ones worth
// reusing were copied).
MATCH (a:ReportArchive)
WHERE a.scope IN $scopes
DETACH DELETE a
