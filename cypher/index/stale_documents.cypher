// Documents previously ingested from these paths whose content has since changed.
UNWIND $docs AS doc
MATCH (d:Document {path: doc.path})
WHERE d.id <> doc.id
RETURN DISTINCT d.id AS id, d.path AS path
