// GraphRAG entities, keyed like extracted ones (neo4j_retag.model.entity_key of the title).
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
SET e += row.props
