UNWIND $rows AS row
MATCH (e:Entity {key: row.key})
SET e.description = row.description, e.type = row.type, e.dirty = row.dirty
