// Documents already in the index (one whose removal was cut short is not: it is finished and
// the document read again, index/stale_documents).
UNWIND $ids AS id
MATCH (d:Document {id: id})
WHERE d.deleting IS NULL
RETURN d.id AS id
