// Relationships are stored once per unordered pair (source key < target key); each text unit
// adds its evidence once: chunk id, description, strength and the ids of the sentences it rests
// on (space-separated), kept as parallel lists.
// weight = number of supporting text units (Edge et al. 2024 §3.1.3). The description texts
// are bounded: past $max_descriptions non-empty ones a text unit adds '' (the lists stay
// parallel for deletion; its id still counts in the weight) and descriptions_left_out counts it.
// $units: [{chunk_id, relationships}] of many text units, merged in order in one transaction.
UNWIND $units AS u
UNWIND u.relationships AS r
MATCH (a:Entity {key: r.source_key})
MATCH (b:Entity {key: r.target_key})
MERGE (a)-[x:RELATED]->(b)
ON CREATE SET x.chunk_ids = [], x.descriptions = [], x.strengths = [], x.evidence = []
WITH x, r, u.chunk_id AS chunk_id
WHERE NOT chunk_id IN x.chunk_ids
// read as it is now (two text units of one batch may add to one pair): a relationship merged
// before evidence existed gets '' for each of its earlier text units
SET x.evidence = coalesce(x.evidence, [i IN x.chunk_ids | '']) +
                 reduce(t = '', sid IN coalesce(r.evidence, []) | trim(t + ' ' + sid))
SET x.chunk_ids = x.chunk_ids + chunk_id,
    x.descriptions = x.descriptions + CASE
      WHEN size([d IN x.descriptions WHERE d <> '']) < $max_descriptions THEN r.description
      ELSE '' END,
    x.descriptions_left_out = coalesce(x.descriptions_left_out, 0) + CASE
      WHEN size([d IN x.descriptions WHERE d <> '']) < $max_descriptions THEN 0 ELSE 1 END,
    x.strengths = x.strengths + r.strength,
    x.dirty = true
SET x.weight = toFloat(size(x.chunk_ids))
