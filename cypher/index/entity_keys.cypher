MATCH (e:$($label))
RETURN e.key AS key
ORDER BY key
