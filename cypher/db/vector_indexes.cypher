// The vector indexes of the embeddings, cosine, of $dimensions (the embedding
// model's; db/vectors.py checks the stored vectors' model and dimension first); idempotent.
// Not quantized: exact scores (quantized, a text's own vector scored 0.996 against it and
// near ties swapped), at the memory of float32 vectors, small at this scale.
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                          `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (e:Entity) ON (e.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                          `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX community_embedding IF NOT EXISTS FOR (c:Community) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                          `vector.quantization.enabled`: false}};
