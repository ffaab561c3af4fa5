// Entities as the embed stage reads them (name: description).
MATCH (e:Entity)
RETURN e.key AS id, e.name AS name, e.description AS description, e.embedding_key AS key
