// Whether the graph holds a lazy index (concept communities, reports built on demand).
OPTIONAL MATCH (m:Meta {id: 'index'})
RETURN coalesce(m.index_method = 'lazy', EXISTS { (:Concept) } AND NOT EXISTS { (:Entity) })
       AS lazy
