// Remove text units ($gone: ids), their mentions and claims, in one transaction (index/remove.py
// sizes the batches); entities and relationships no remaining text unit supports go too.
// Shared ones keep the evidence of the remaining text units: weight and strength recomputed
// here; their description is marked dirty (re-summarised by the next ingest) only when the set
// of descriptions changed, so unchanged summaries cost no LLM call. A document's text units
// removed batch by batch end as all of them at once would: weights shrink by the same
// proportion in steps, and a description is missed in the batch that drops its last holder
// (an entity's type may be recomputed in an earlier batch; a changed one is re-summarised,
// its type with it).
// Every community (of any scope) with a member these text units mention changes: its report
// is marked 'stale', so no query reads it until the next ingest rebuilds the communities.
MATCH (c:Chunk)-[:MENTIONS]->(:Entity)-[:IN_COMMUNITY]->(k:Community)
WHERE c.id IN $gone AND k.report_status = 'ok'
SET k.report_status = 'stale',
    k.report_error = 'stale: its members changed (documents deleted); rebuilt by the next ingest';
// lazy index: the same for communities of concepts (their reports were built on demand)
MATCH (c:Chunk)-[:HAS_CONCEPT]->(:Concept)-[:IN_COMMUNITY]->(k:Community)
WHERE c.id IN $gone AND k.report_status = 'ok'
SET k.report_status = 'stale',
    k.report_error = 'stale: its members changed (documents deleted); rebuilt by the next ingest';
MATCH ()-[r:RELATED]->()
WHERE any(i IN r.chunk_ids WHERE i IN $gone)
WITH r, [k IN range(0, size(r.chunk_ids) - 1) WHERE NOT r.chunk_ids[k] IN $gone] AS keep
WITH r, keep,
     [k IN range(0, size(r.chunk_ids) - 1) WHERE trim(coalesce(r.descriptions[k], '')) <> ''
      | trim(r.descriptions[k])] AS before,
     [k IN keep WHERE trim(coalesce(r.descriptions[k], '')) <> '' | trim(r.descriptions[k])] AS after,
     [k IN keep | r.strengths[k]] AS strengths
// the weight shrinks in proportion to the text units kept: ours (= supporting text units)
// becomes their number, an imported GraphRAG weight keeps its scale
SET r.weight = coalesce(toFloat(r.weight), toFloat(size(r.chunk_ids)))
               * size(keep) / size(r.chunk_ids),
    r.descriptions = CASE WHEN r.descriptions IS NULL THEN null
                          ELSE [k IN keep | r.descriptions[k]] END,
    r.strengths = CASE WHEN r.strengths IS NULL THEN null ELSE strengths END,
    r.evidence = CASE WHEN r.evidence IS NULL THEN null ELSE [k IN keep | r.evidence[k]] END,
    r.strength = CASE WHEN r.strengths IS NULL OR size(keep) = 0 THEN r.strength
                      ELSE reduce(s = 0.0, x IN strengths | s + x) / size(keep) END,
    r.chunk_ids = [k IN keep | r.chunk_ids[k]],
    r.dirty = CASE WHEN any(x IN before WHERE NOT x IN after) THEN true ELSE r.dirty END,
    // its summary may cite a deleted text unit: queries read the remaining evidence instead
    // until it is re-summarised (query/local_relationships)
    r.withheld = CASE WHEN any(x IN before WHERE NOT x IN after) THEN true ELSE r.withheld END
WITH r WHERE size(keep) = 0
DELETE r;
MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.id IN $gone
WITH DISTINCT e
CALL (e) {
  MATCH (c:Chunk)-[m:MENTIONS]->(e)
  WITH m, c.id IN $gone AS lost, trim(coalesce(m.description, '')) AS d
  RETURN collect(CASE WHEN d <> '' THEN d END) AS before,
         collect(CASE WHEN d <> '' AND NOT lost THEN d END) AS after,
         collect(CASE WHEN NOT lost AND m.type IS NOT NULL AND m.type <> 'unknown'
                 THEN m.type END) AS types,
         count(CASE WHEN NOT lost THEN 1 END) AS remaining
}
WITH e, remaining, any(x IN before WHERE NOT x IN after) AS changed,
     reduce(best = null, p IN [t IN types | [t, size([u IN types WHERE u = t])]] |
            CASE WHEN best IS NULL OR p[1] > best[1] THEN p ELSE best END) AS top
SET e.dirty = CASE WHEN changed THEN true ELSE e.dirty END,
    e.withheld = CASE WHEN changed THEN true ELSE e.withheld END, // as r.withheld
    e.type = CASE WHEN changed OR remaining = 0 THEN e.type ELSE coalesce(top[0], 'unknown') END
WITH e WHERE remaining = 0
DETACH DELETE e;
// lazy index: co-occurrences lose the evidence of the text units that go
MATCH (:Concept)-[r:CO_OCCURS]->(:Concept)
WHERE any(i IN r.chunk_ids WHERE i IN $gone)
SET r.chunk_ids = [i IN r.chunk_ids WHERE NOT i IN $gone]
SET r.weight = toFloat(size(r.chunk_ids))
WITH r WHERE size(r.chunk_ids) = 0
DELETE r;
MATCH (c:Chunk)-[:HAS_CLAIM]->(cl:Claim) WHERE c.id IN $gone
DETACH DELETE cl;
// the sentences only these text units hold, and every EVIDENCE edge to them (a sentence of an
// overlap stays while a text unit of a later batch holds it)
MATCH (c:Chunk)-[:HAS_SENTENCE]->(s:Sentence) WHERE c.id IN $gone
  AND NOT EXISTS { (o:Chunk)-[:HAS_SENTENCE]->(s) WHERE NOT o.id IN $gone }
DETACH DELETE s;
MATCH (c:Chunk) WHERE c.id IN $gone
DETACH DELETE c;
