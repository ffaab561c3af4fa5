UNWIND $rows AS row
MATCH (e:Entity {key: row.key})
// a description made from the remaining evidence: nothing deleted is cited any more
SET e.description = row.description, e.type = row.type, e.dirty = row.dirty,
    e.withheld = null
