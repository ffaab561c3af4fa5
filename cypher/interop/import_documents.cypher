// GraphRAG documents (interop/graphrag/importer.py). A document is the SHA-256 of its text,
// like an ingested one; GraphRAG's own id and short id are kept beside it. Idempotent
// (MERGE + SET).
UNWIND $rows AS row
MERGE (d:Document {id: row.id})
ON CREATE SET d.created_at = coalesce(row.created_at, datetime())
SET d += row.props, d += row.metadata
