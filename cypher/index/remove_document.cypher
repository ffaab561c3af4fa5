// Remove a document's text units and their contributions (an edited file replaces its old text).
MATCH (d:Document {id: $id})<-[:PART_OF]-(c:Chunk)
WITH collect(c.id) AS ids
MATCH ()-[r:RELATED]->()
WHERE any(i IN r.chunk_ids WHERE i IN ids)
WITH r, [k IN range(0, size(r.chunk_ids) - 1) WHERE NOT r.chunk_ids[k] IN ids] AS keep
SET r.descriptions = [k IN keep | r.descriptions[k]],
    r.strengths = [k IN keep | r.strengths[k]],
    r.evidence = CASE WHEN r.evidence IS NULL THEN null ELSE [k IN keep | r.evidence[k]] END,
    r.chunk_ids = [k IN keep | r.chunk_ids[k]],
    r.weight = toFloat(size(keep)), r.dirty = true, r.withheld = true;
MATCH ()-[r:RELATED]->() WHERE size(r.chunk_ids) = 0 DELETE r;
// lazy index: co-occurrences lose the evidence of the old text units (as documents delete)
MATCH (d:Document {id: $id})<-[:PART_OF]-(c:Chunk)
WITH collect(c.id) AS gone
MATCH (:Concept)-[r:CO_OCCURS]->(:Concept)
WHERE any(i IN r.chunk_ids WHERE i IN gone)
SET r.chunk_ids = [i IN r.chunk_ids WHERE NOT i IN gone]
SET r.weight = toFloat(size(r.chunk_ids))
WITH r WHERE size(r.chunk_ids) = 0
DELETE r;
MATCH (d:Document {id: $id})<-[:PART_OF]-(:Chunk)-[:HAS_CLAIM]->(cl:Claim) DETACH DELETE cl;
// withheld: the summary may cite the old text; queries read the remaining evidence until it
// is re-summarised (query/local_entities, query/local_relationships)
MATCH (d:Document {id: $id})<-[:PART_OF]-(:Chunk)-[:MENTIONS]->(e:Entity)
SET e.dirty = true, e.withheld = true;
// the document's sentences go with it, and every EVIDENCE edge to them
MATCH (d:Document {id: $id})<-[:PART_OF]-(:Chunk)-[:HAS_SENTENCE]->(s:Sentence) DETACH DELETE s;
MATCH (d:Document {id: $id}) OPTIONAL MATCH (d)<-[:PART_OF]-(c:Chunk) DETACH DELETE c, d;
MATCH (e:Entity) WHERE NOT ()-[:MENTIONS]->(e) DETACH DELETE e;
// lazy index: concepts no remaining text unit has
MATCH (k:Concept) WHERE NOT EXISTS { (:Chunk)-[:HAS_CONCEPT]->(k) } DETACH DELETE k;
MERGE (m:Meta {id: 'index'}) SET m.graph_dirty = true;
