// Take the database's index lock if it is free (the meta_id constraint makes MERGE atomic);
// returns the holder either way: us, or the run that holds it.
MERGE (l:Meta {id: 'lock'})
ON CREATE SET l.owner = $owner, l.host = $host, l.pid = $pid, l.what = $what,
              l.since = datetime()
RETURN l.owner AS owner, l.host AS host, l.pid AS pid, l.what AS what,
       toString(l.since) AS since
