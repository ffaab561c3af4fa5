MATCH (c:Community)
RETURN coalesce(max(c.id), -1) + 1 AS next
