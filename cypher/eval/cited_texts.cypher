// The text an answer cites (nugget evaluation's claim support): community reports by id (their
// full content) and text units by id.
CALL {
  UNWIND $report_ids AS id
  MATCH (c:Community {id: id})
  RETURN 'report' AS kind, c.id AS id, c.full_content AS text
  UNION ALL
  UNWIND $text_unit_ids AS id
  MATCH (t:Chunk {id: id})
  RETURN 'text_unit' AS kind, t.id AS id, t.text AS text
}
RETURN kind, id, text
