MATCH (k:Concept)
RETURN k.key AS key
ORDER BY key
