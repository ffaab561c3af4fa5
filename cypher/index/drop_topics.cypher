// Topics whose label is not in $keep (no subgraph): removed; their names returned.
MATCH (t:Topic) WHERE NOT t.label IN $keep
WITH t, t.name AS name
DETACH DELETE t
RETURN name
