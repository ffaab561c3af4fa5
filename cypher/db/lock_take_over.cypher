// Take over a lock whose holder is gone (a killed run on this host): only if it is still held
// by $stale, so two runs taking over at once cannot both win.
MATCH (l:Meta {id: 'lock', owner: $stale})
SET l.owner = $owner, l.host = $host, l.pid = $pid, l.what = $what, l.since = datetime()
RETURN l.owner AS owner
