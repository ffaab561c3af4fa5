// GraphRAG text units as :Chunk (their id kept as ours), linked to their documents.
// extracted = true: the extraction came with the import, so `ingest --resume` skips them.
UNWIND $rows AS row
MERGE (c:Chunk {id: row.id})
SET c += row.props, c.extracted = true
WITH c, row
CALL (c, row) {
  UNWIND row.document_ids AS doc_id
  MATCH (d:Document {id: doc_id})
  MERGE (c)-[:PART_OF]->(d)
}
