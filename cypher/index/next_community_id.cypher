// The next free community id: above every id ever given (kept in the index metadata: an id
// once cited never comes back for another community), live and archived.
MERGE (m:Meta {id: 'index'})
WITH m
OPTIONAL MATCH (c:Community)
WITH m, max(c.id) AS live
OPTIONAL MATCH (a:ReportArchive)
WITH m, live, max(a.id) AS archived
RETURN reduce(n = coalesce(m.next_community_id, 0), x IN [live, archived] |
              CASE WHEN x IS NOT NULL AND x + 1 > n THEN x + 1 ELSE n END) AS next
