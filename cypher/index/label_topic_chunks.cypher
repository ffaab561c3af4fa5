// Topic assignment: a text unit concerns a topic (the entities it produced join the topic's
// subgraph through index/label_topic_entities_from_chunks).
UNWIND $rows AS row
MATCH (t:Topic {name: row.topic})
MATCH (c:Chunk {id: row.chunk_id})
MERGE (c)-[:ABOUT_TOPIC]->(t)
