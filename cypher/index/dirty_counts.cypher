// Elements whose description must be re-summarised by the next ingest.
RETURN COUNT { (e:Entity) WHERE e.dirty = true } AS entities,
       COUNT { ()-[r:RELATED]->() WHERE r.dirty = true } AS relationships
