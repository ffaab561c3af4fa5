MERGE (m:Meta {id: 'index'})
RETURN m.graph_dirty AS graph_dirty, m.topics_dirty AS topics_dirty, m.topics_mode AS topics_mode
