"""Exporting the graph as a Microsoft GraphRAG output folder of parquet tables.

Read -> pure plan -> write, like the import: :func:`read_export` reads the graph,
:func:`.export_plan.plan_export` maps it to GraphRAG's tables (the mapping and its
recomputed columns are described there), :func:`write_tables` writes them with
:data:`SCHEMAS`. :func:`export_graphrag` writes what :mod:`.tables` reads, so import ->
export -> import is lossless on the fields kept.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel

from ...config import Settings
from ...db import Graph
from .export_plan import ExportPlan, ExportSource, plan_export

_S, _I, _F = pa.string(), pa.int64(), pa.float64()
_LS, _LI = pa.list_(pa.string()), pa.list_(pa.int64())
_FINDINGS = pa.list_(pa.struct([("summary", _S), ("explanation", _S)]))
SCHEMAS: dict[str, pa.Schema] = {
    "documents": pa.schema([("id", _S), ("human_readable_id", _I), ("title", _S), ("text", _S),
                            ("text_unit_ids", _LS), ("creation_date", _S)]),
    "text_units": pa.schema([("id", _S), ("human_readable_id", _I), ("text", _S),
                             ("n_tokens", _I), ("document_id", _S), ("entity_ids", _LS),
                             ("relationship_ids", _LS), ("covariate_ids", _LS),
                             ("document_ids", _LS)]),
    "entities": pa.schema([("id", _S), ("human_readable_id", _I), ("title", _S), ("type", _S),
                           ("description", _S), ("text_unit_ids", _LS), ("frequency", _I),
                           ("degree", _I)]),
    "relationships": pa.schema([("id", _S), ("human_readable_id", _I), ("source", _S),
                                ("target", _S), ("description", _S), ("weight", _F),
                                ("combined_degree", _I), ("text_unit_ids", _LS)]),
    "communities": pa.schema([("id", _S), ("human_readable_id", _I), ("community", _I),
                              ("level", _I), ("parent", _I), ("children", _LI), ("title", _S),
                              ("entity_ids", _LS), ("relationship_ids", _LS),
                              ("text_unit_ids", _LS), ("period", _S), ("size", _I)]),
    "community_reports": pa.schema([("id", _S), ("human_readable_id", _I), ("community", _I),
                                    ("level", _I), ("parent", _I), ("children", _LI),
                                    ("title", _S), ("summary", _S), ("full_content", _S),
                                    ("rank", _F), ("rating_explanation", _S),
                                    ("findings", _FINDINGS), ("full_content_json", _S),
                                    ("period", _S), ("size", _I)]),
    "covariates": pa.schema([("id", _S), ("human_readable_id", _I), ("covariate_type", _S),
                             ("type", _S), ("description", _S), ("subject_id", _S),
                             ("object_id", _S), ("status", _S), ("start_date", _S),
                             ("end_date", _S), ("source_text", _S), ("text_unit_id", _S)]),
}


class ExportReport(BaseModel):
    folder: str
    files: dict[str, int]
    notes: list[str] = []


def read_export(graph: Graph) -> ExportSource:
    """What the export needs from the graph (``cypher/interop/export_*``)."""
    return ExportSource(
        units=graph.run("interop/export_text_units"),
        entities=graph.run("interop/export_entities"),
        relationships=graph.run("interop/export_relationships"),
        documents=graph.run("interop/export_documents"),
        communities=graph.run("interop/export_communities"),
        claims=graph.run("interop/export_claims"),
        topic_communities=graph.run("interop/export_topic_communities")[0]["n"])


def write_tables(folder: Path, plan: ExportPlan) -> dict[str, int]:
    """Each planned table as ``<name>.parquet`` in ``folder`` (columns of :data:`SCHEMAS`,
    documents with their metadata as ``raw_data`` and ``metadata``); rows written per table."""
    files = {}
    for name, rows in plan.tables.items():
        table = pa.Table.from_pylist(rows, schema=SCHEMAS[name])
        if name == "documents":
            metas = plan.doc_metadata
            meta = pa.array(metas) if any(metas) else pa.nulls(len(metas))
            table = table.append_column("raw_data", meta).append_column("metadata", meta)
        pq.write_table(table, folder / f"{name}.parquet")
        files[name] = table.num_rows
    return files


def export_graphrag(graph: Graph, settings: Settings, folder: Path) -> ExportReport:
    """Write the graph as a GraphRAG output folder of parquet tables (see
    :mod:`.export_plan` for the mapping)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    plan = plan_export(read_export(graph), overlap=settings.index.chunk_overlap,
                       encoding=settings.encoding, today=date.today().isoformat())
    return ExportReport(folder=str(folder), files=write_tables(folder, plan), notes=plan.notes)


def export_folder(settings: Settings, folder: Path) -> ExportReport:
    """:func:`export_graphrag` on a connection of its own (`neo4j-retag export`)."""
    with Graph(settings) as graph:
        return export_graphrag(graph, settings, folder)
