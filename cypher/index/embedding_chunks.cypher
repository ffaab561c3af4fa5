// Text units as the embed stage reads them: id, text, and the key of the text their stored
// embedding was made from (null before any).
MATCH (c:Chunk)
RETURN c.id AS id, c.text AS text, c.embedding_key AS key
