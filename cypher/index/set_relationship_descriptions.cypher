UNWIND $rows AS row
MATCH ()-[r:RELATED]->() WHERE elementId(r) = row.rid
// a description made from the remaining evidence: nothing deleted is cited any more
SET r.description = row.description, r.strength = row.strength, r.dirty = row.dirty,
    r.withheld = null
