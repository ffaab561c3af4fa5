// Vectors of the embed stage (stored as float32 arrays) and the key of the text they embed.
UNWIND $rows AS row
MATCH (n:Entity {key: row.id})
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
SET n.embedding_key = row.key
