// The $k nodes nearest to $vector (cosine) in the vector index $index: chunk_embedding,
// entity_embedding or community_embedding (db/vectors.py INDEXES), best first; a text unit's
// or community's id, an entity's key.
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN coalesce(node.id, node.key) AS id, score
ORDER BY score DESC, id
