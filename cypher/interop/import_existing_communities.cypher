// Communities already holding any of these ids (to detect collisions before an import).
UNWIND $ids AS id
MATCH (c:Community {id: id})
RETURN c.id AS id, c.scope AS scope, c.origin AS origin, c.graphrag_id AS graphrag_id,
       c.repair_key AS repair_key
ORDER BY id
