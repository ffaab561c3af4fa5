// Every stored vector and the vector indexes go (a new embedding model or dimension:
// `ingest --reembed`); the next embed stage makes them again.
DROP INDEX chunk_embedding IF EXISTS;
DROP INDEX entity_embedding IF EXISTS;
DROP INDEX community_embedding IF EXISTS;
MATCH (n:Chunk|Entity|Community) WHERE n.embedding IS NOT NULL
CALL (n) { REMOVE n.embedding, n.embedding_key } IN TRANSACTIONS OF 5000 ROWS;
MATCH (m:Meta {id: 'index'}) REMOVE m.embedding_model, m.embedding_dimensions;
