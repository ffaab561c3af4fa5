// Entities now, and those marked when topics were last mined (index/topic_basis.py).
MATCH (e:Entity)
RETURN count(e) AS entities, count(CASE WHEN e.topics_mined THEN 1 END) AS marked
