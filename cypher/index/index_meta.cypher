MERGE (m:Meta {id: 'index'})
RETURN m.graph_dirty AS graph_dirty
