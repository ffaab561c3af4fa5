"""Microsoft GraphRAG's output tables: their columns, how they map to the graph, and reading them.

GraphRAG writes its index as parquet tables (https://microsoft.github.io/graphrag/index/outputs/,
``graphrag/data_model/schemas.py``): ``documents``, ``text_units``, ``entities``,
``relationships``, ``communities``, ``community_reports`` and optionally ``covariates``;
releases before 2.0 named them ``create_final_<table>.parquet`` (and kept degrees, and before
1.0 community membership, in ``create_final_nodes.parquet``). Both layouts are read; the
column mapping is :data:`SPECS` (plus the renames of pre-1.0 columns in its ``aliases``).

Ids are kept: every GraphRAG ``id`` / ``human_readable_id`` is stored as ``graphrag_id`` /
``human_readable_id``, text unit ids become :Chunk ids, and GraphRAG's ``community`` number
becomes ``Community.id`` (the number its reports cite; level 0 is the root in both). Entities
are keyed by :func:`neo4j_retag.model.entity_key` of their title, documents by the SHA-256 of
their text, exactly like ingested ones. Every write is a MERGE, so importing twice changes
nothing (:mod:`.importer`); :func:`.exporter.export_graphrag` writes the same layout back
(planned in :mod:`.export_plan`), so import -> export -> import is lossless on the fields kept.

Mapping (GraphRAG column -> graph):

- documents: id -> Document.graphrag_id (Document.id = SHA-256 of the cleaned text), title ->
  title and path, text, human_readable_id, creation_date (also parsed into created_at),
  metadata / raw_data (3.x) / attributes (1.x) -> graphrag_metadata (JSON) + its scalar entries
  as properties; text_unit_ids -> the order (Chunk.index) of the document's chunks.
- text_units: id -> Chunk.id, text, n_tokens, human_readable_id, document_ids / document_id
  (3.x) -> PART_OF + document_id; entity_ids -> MENTIONS (with entities.text_unit_ids).
- entities: title (name before 1.0) -> Entity.name and key, type, description, degree
  (create_final_nodes before 2.0), frequency, id, human_readable_id; text_unit_ids -> MENTIONS.
- relationships: source/target -> RELATED once per unordered pair (graphrag_reversed keeps the
  direction), description, weight (kept), text_unit_ids -> chunk_ids, id, human_readable_id.
- communities + community_reports, joined on community: community -> Community.id, level,
  parent (-1 -> null) -> parent + PARENT_OF, entity_ids -> IN_COMMUNITY (create_final_nodes
  before 1.0), size, period, title -> community_title, id -> graphrag_id; report title,
  summary, full_content, rank -> rating and rank, rating_explanation (rank_explanation before
  2.0), findings -> JSON, full_content_json, id -> graphrag_report_id; report_status 'ok'.
- covariates: id, subject_id -> subject + ABOUT, object_id -> object, type, status,
  start_date, end_date, description, source_text -> source_quote, text_unit_id -> chunk_id +
  HAS_CLAIM, covariate_type.
- Recomputed on export, not stored: text_units.relationship_ids / covariate_ids,
  relationships.combined_degree, communities.relationship_ids / text_unit_ids, children.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from pydantic import BaseModel

from ...errors import InputError

Row = dict[str, Any]  # one parquet row as read (column -> value), or one row to write
ORIGIN = "graphrag"
LEGACY_PREFIX = "create_final_"
# Document properties the mapping sets itself; any other scalar property is GraphRAG metadata
DOC_KEYS = {"id", "title", "path", "sha256", "text", "created_at", "origin", "graphrag_id",
            "human_readable_id", "creation_date", "graphrag_metadata"}


@dataclass(frozen=True)
class TableSpec:
    """How one GraphRAG table maps to the graph.

    ``used``: columns stored (canonical names); ``derived``: columns recomputed on export
    rather than stored; ``need``: columns without which the file is unusable; ``aliases``:
    older column names -> canonical.
    """

    name: str
    required: bool
    used: tuple[str, ...]
    need: tuple[str, ...]
    derived: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)


SPECS: dict[str, TableSpec] = {s.name: s for s in (
    TableSpec("documents", False,
              ("id", "human_readable_id", "title", "text", "text_unit_ids", "creation_date",
               "metadata"), ("id",),
              aliases={"raw_content": "text", "attributes": "metadata", "raw_data": "metadata"}),
    TableSpec("text_units", False,
              ("id", "human_readable_id", "text", "n_tokens", "document_ids", "entity_ids"),
              ("id", "text"), ("relationship_ids", "covariate_ids"),
              aliases={"document_id": "document_ids"}),
    TableSpec("entities", True,
              ("id", "human_readable_id", "title", "type", "description", "text_unit_ids",
               "frequency", "degree"), ("title",), aliases={"name": "title"}),
    TableSpec("relationships", True,
              ("id", "human_readable_id", "source", "target", "description", "weight",
               "text_unit_ids"), ("source", "target"), ("combined_degree",),
              aliases={"rank": "combined_degree"}),
    TableSpec("communities", True,
              ("id", "human_readable_id", "community", "level", "parent", "children", "title",
               "entity_ids", "period", "size"), ("level",), ("relationship_ids",
                                                             "text_unit_ids")),
    TableSpec("community_reports", True,
              ("id", "human_readable_id", "community", "level", "parent", "children", "title",
               "summary", "full_content", "rank", "rating_explanation", "findings",
               "full_content_json", "period", "size"), ("community",),
              aliases={"rank_explanation": "rating_explanation"}),
    TableSpec("covariates", False,
              ("id", "human_readable_id", "covariate_type", "type", "description", "subject_id",
               "object_id", "status", "start_date", "end_date", "source_text", "text_unit_id"),
              ("subject_id",)),
    # create_final_nodes (before 2.0): entity degree; before 1.0 also community membership
    TableSpec("nodes", False, ("id", "title", "community", "level", "degree"),
              ("title",)),
)}
TABLES = tuple(n for n in SPECS if n != "nodes")


class FileReport(BaseModel):
    """One parquet file: which columns were stored, recomputed, ignored or absent."""

    table: str
    file: str
    rows: int
    used: list[str]
    renamed: dict[str, str] = {}  # older column name -> the current one it stands for
    derived: list[str] = []
    ignored: list[str] = []
    missing: list[str] = []


@dataclass
class Output:
    """A GraphRAG output folder, read: canonical-column rows per table."""

    folder: Path
    layout: str
    version: str
    tables: dict[str, list[Row]]
    files: list[FileReport]
    missing_optional: list[str]
    ignored_files: list[str]

    def has_column(self, table: str, column: str) -> bool:
        """Whether ``table``'s file has ``column`` under that very name (not an alias)."""
        return any(column in f.used for f in self.files if f.table == table)


def _locate(folder: Path) -> tuple[str, dict[str, Path], list[str], list[str]]:
    """(layout, table -> file, absent optional file names, ignored file names).

    Raises ValueError naming what is missing.
    """
    if not folder.is_dir():
        raise InputError(f"no such folder: {folder}")
    names = sorted(p.name for p in folder.iterdir())
    current = {t: folder / f"{t}.parquet" for t in TABLES if f"{t}.parquet" in names}
    legacy = {t: folder / f"{LEGACY_PREFIX}{t}.parquet" for t in SPECS
              if f"{LEGACY_PREFIX}{t}.parquet" in names}
    if not current and not legacy:
        raise InputError(
            f"{folder} holds no GraphRAG output: expected entities.parquet, relationships.parquet,"
            " communities.parquet, community_reports.parquet (or their create_final_* names); "
            "point at GraphRAG's output folder (output/ or output/<run>/artifacts/)")
    layout, chosen = ("graphrag", current) if current else ("graphrag-create_final", legacy)
    prefix = "" if current else LEGACY_PREFIX
    absent = [t for t in TABLES if t not in chosen]
    for t in absent:
        if SPECS[t].required:
            raise InputError(f"GraphRAG output in {folder} lacks the required file "
                             f"{prefix}{t}.parquet")
    used = {p.name for p in chosen.values()}
    return (layout, chosen, [f"{prefix}{t}.parquet" for t in absent],
            [n for n in names if n not in used])


def _read_table(spec: TableSpec, path: Path) -> tuple[list[Row], FileReport]:
    names = pq.read_schema(path).names
    pick: dict[str, str] = {}  # file column -> canonical
    for col in names:  # canonical names first, so an alias never shadows the real column
        if col in spec.used:
            pick[col] = col
    for col in names:
        canon = spec.aliases.get(col)
        if canon in spec.used and canon not in pick.values():
            pick[col] = canon
    if spec.name == "communities" and "community" not in names and "id" in names:
        pick["id"] = "community"  # before 1.0, `id` was the Leiden community number
    for col in spec.need:
        if col not in pick.values():
            raise InputError(f"{path.name} lacks the required column {col!r} "
                             f"(columns: {', '.join(names)})")
    rows = [{pick[k]: v for k, v in row.items()}
            for row in pq.read_table(path, columns=list(pick)).to_pylist()]
    derived = [c for c in names if spec.aliases.get(c, c) in spec.derived]
    report = FileReport(table=spec.name, file=path.name, rows=len(rows), used=list(pick),
                        renamed={k: v for k, v in pick.items() if k != v}, derived=derived,
                        ignored=[c for c in names if c not in pick and c not in derived],
                        missing=[c for c in spec.used if c not in pick.values()])
    return rows, report


def _version(layout: str, files: list[FileReport]) -> str:
    cols = {f.table: {*f.used, *f.derived, *f.ignored} for f in files}
    if layout == "graphrag":
        v3 = "document_id" in cols.get("text_units", ()) or "raw_data" in cols.get("documents", ())
        return "GraphRAG >= 3.0" if v3 else "GraphRAG 2.x"
    return "GraphRAG < 1.0" if "name" in cols["entities"] else "GraphRAG 1.x"


def read_output(folder: Path) -> Output:
    """Read a GraphRAG output folder (either layout) into canonical-column rows.

    Raises FileNotFoundError for a missing folder, ValueError naming a missing required file
    or column.
    """
    folder = Path(folder)
    layout, chosen, missing, ignored = _locate(folder)
    tables: dict[str, list[Row]] = {}
    files: list[FileReport] = []
    for name, path in chosen.items():
        tables[name], report = _read_table(SPECS[name], path)
        files.append(report)
    return Output(folder, layout, _version(layout, files), tables, files, missing, ignored)
