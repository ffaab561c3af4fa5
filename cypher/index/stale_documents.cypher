// Documents previously ingested from these paths whose content has since changed, and these
// documents when a removal of them was cut short (index/mark_deleting): both are removed first.
UNWIND $docs AS doc
MATCH (d:Document {path: doc.path})
WHERE d.id <> doc.id OR d.deleting
RETURN DISTINCT d.id AS id, d.path AS path
