// Text units topic assignment labelled (with no topic too): an incremental topic build labels
// only the others (index/topic_basis.py).
UNWIND $rows AS row
MATCH (c:Chunk {id: row.id})
SET c.topics_assigned = true
