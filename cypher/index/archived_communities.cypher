// The archived communities of a scope (index/archive_communities): their ids by level and
// membership, for the new hierarchy to keep (an id a live community holds - an import - is not).
MATCH (a:ReportArchive {scope: $scope})
WHERE a.membership IS NOT NULL AND NOT EXISTS { MATCH (:Community {id: a.id}) }
RETURN a.id AS id, a.level AS level, a.membership AS membership
ORDER BY id
