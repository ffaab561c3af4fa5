// GraphRAG relationships, once per unordered pair (source key < target key), their weight kept;
// text_unit_ids become chunk_ids. SET, not append: importing twice changes nothing.
UNWIND $rows AS row
MATCH (a:Entity {key: row.source_key})
MATCH (b:Entity {key: row.target_key})
MERGE (a)-[r:RELATED]->(b)
SET r += row.props
