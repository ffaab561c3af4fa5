// The general community hierarchy: id, level, parent (lazy search prunes a community's
// descendants with it).
MATCH (k:Community {scope: 'general'})
RETURN k.id AS id, k.level AS level, k.parent AS parent
ORDER BY k.level, k.id
