"""Microsoft GraphRAG output folders in and out: `tables` (the parquet layouts of every version),
`values` (cell coercion), `plan` (GraphRAG rows -> our import rows, pure), `importer`,
`export_plan` (our graph's rows -> GraphRAG's tables, pure), `exporter`."""
