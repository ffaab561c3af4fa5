// Model-written community reports of one scope with their findings (JSON), each once: not
// composed (no model wrote those) and not an import's carried copy of its parent.
MATCH (c:Community {scope: $scope})
WHERE c.report_status = 'ok' AND c.findings IS NOT NULL
  AND coalesce(c.report_source, 'llm') <> 'composed' AND NOT coalesce(c.carried, false)
RETURN c.id AS id, c.title AS title, c.findings AS findings
ORDER BY c.id
