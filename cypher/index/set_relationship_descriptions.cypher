UNWIND $rows AS row
MATCH ()-[r:RELATED]->() WHERE elementId(r) = row.rid
SET r.description = row.description, r.strength = row.strength, r.dirty = row.dirty
