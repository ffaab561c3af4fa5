// Which index the graph holds: 'lazy' (concepts, no LLM) or 'full' (LLM-extracted entities);
// null for an empty graph.
OPTIONAL MATCH (m:Meta {id: 'index'})
RETURN CASE WHEN m.index_method IS NOT NULL THEN m.index_method
            WHEN EXISTS { (:Entity) } THEN 'full'
            WHEN EXISTS { (:Concept) } THEN 'lazy' END AS method
