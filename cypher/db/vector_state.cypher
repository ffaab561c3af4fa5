// The model and dimension the stored vectors were made with (Meta), and how many nodes hold
// one (vector_indexes_state: the indexes themselves).
OPTIONAL MATCH (m:Meta {id: 'index'})
RETURN m.embedding_model AS model, m.embedding_dimensions AS dimensions,
       COUNT { (c:Chunk) WHERE c.embedding IS NOT NULL } AS chunks,
       COUNT { (e:Entity) WHERE e.embedding IS NOT NULL } AS entities,
       COUNT { (c:Community) WHERE c.embedding IS NOT NULL } AS communities
