// Each topic's share of all entities (its subgraph, from topic assignment) and the text units
// assigned to it: a topic holding most of the graph narrows nothing (index/topic_split.py).
CALL { MATCH (e:Entity) RETURN count(e) AS total }
MATCH (t:Topic)
CALL { WITH t MATCH (e:Entity) WHERE t.label IN labels(e) RETURN count(e) AS entities }
RETURN t.name AS name, t.description AS description, t.label AS label, entities,
       CASE WHEN total = 0 THEN 0.0 ELSE toFloat(entities) / total END AS share,
       COUNT { (:Chunk)-[:ABOUT_TOPIC]->(t) } AS units
ORDER BY t.label
