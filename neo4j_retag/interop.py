"""Microsoft GraphRAG interop: import a GraphRAG output folder into the graph, export ours as one.

GraphRAG writes its index as parquet tables (https://microsoft.github.io/graphrag/index/outputs/,
``graphrag/data_model/schemas.py``): ``documents``, ``text_units``, ``entities``,
``relationships``, ``communities``, ``community_reports`` and optionally ``covariates``;
releases before 2.0 named them ``create_final_<table>.parquet`` (and kept degrees, and before
1.0 community membership, in ``create_final_nodes.parquet``). Both layouts are read; the
column mapping is :data:`SPECS` (plus the renames of pre-1.0 columns in its ``aliases``).

Ids are kept: every GraphRAG ``id`` / ``human_readable_id`` is stored as ``graphrag_id`` /
``human_readable_id``, text unit ids become :Chunk ids, and GraphRAG's ``community`` number
becomes ``Community.id`` (the number its reports cite; level 0 is the root in both). Entities
are keyed by :func:`neo4j_retag.extract.entity_key` of their title, documents by the SHA-256 of
their text, exactly like ingested ones. Every write is a MERGE, so importing twice changes
nothing; :func:`export_graphrag` writes the same layout back, so import -> export -> import
is lossless on the fields kept.

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

import hashlib
import json
import math
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel

from . import tokens
from .communities import GENERAL
from .config import Settings
from .db import Graph
from .documents import clean
from .extract import entity_key

ORIGIN = "graphrag"
LEGACY_PREFIX = "create_final_"
_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/neo4j-retag/graphrag-export")


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


class ImportReport(BaseModel):
    """What :func:`import_graphrag` read and wrote.

    ``layout``: ``graphrag`` (``entities.parquet`` ...) or ``graphrag-create_final`` (older
    names); ``version``: the GraphRAG release the columns point to; ``counts``: rows written
    per kind; ``levels``: per level of the general scope, communities / reports / memberships.
    """

    folder: str
    layout: str
    version: str
    files: list[FileReport]
    missing_optional: list[str] = []
    ignored_files: list[str] = []
    counts: dict[str, int] = {}
    levels: list[dict[str, int]] = []
    warnings: list[str] = []


class ExportReport(BaseModel):
    folder: str
    files: dict[str, int]
    notes: list[str] = []


# --- reading ---------------------------------------------------------------------------

@dataclass
class Output:
    """A GraphRAG output folder, read: canonical-column rows per table."""

    folder: Path
    layout: str
    version: str
    tables: dict[str, list[dict[str, Any]]]
    files: list[FileReport]
    missing_optional: list[str]
    ignored_files: list[str]


def _locate(folder: Path) -> tuple[str, dict[str, Path], list[str]]:
    """(layout, table -> file, ignored file names). Raises ValueError naming what is missing."""
    if not folder.is_dir():
        raise FileNotFoundError(f"no such folder: {folder}")
    names = sorted(p.name for p in folder.iterdir())
    current = {t: folder / f"{t}.parquet" for t in TABLES if f"{t}.parquet" in names}
    legacy = {t: folder / f"{LEGACY_PREFIX}{t}.parquet" for t in SPECS
              if f"{LEGACY_PREFIX}{t}.parquet" in names}
    if not current and not legacy:
        raise ValueError(
            f"{folder} holds no GraphRAG output: expected entities.parquet, relationships.parquet,"
            " communities.parquet, community_reports.parquet (or their create_final_* names); "
            "point at GraphRAG's output folder (output/ or output/<run>/artifacts/)")
    layout, chosen = ("graphrag", current) if current else ("graphrag-create_final", legacy)
    for t in TABLES:
        if SPECS[t].required and t not in chosen:
            prefix = "" if layout == "graphrag" else LEGACY_PREFIX
            raise ValueError(f"GraphRAG output in {folder} lacks the required file "
                             f"{prefix}{t}.parquet")
    used = {p.name for p in chosen.values()}
    return layout, chosen, [n for n in names if n not in used]


def _read_table(spec: TableSpec, path: Path) -> tuple[list[dict[str, Any]], FileReport]:
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
    derived = [c for c in names if spec.aliases.get(c, c) in spec.derived]
    report = FileReport(table=spec.name, file=path.name, rows=0, used=list(pick),
                        renamed={k: v for k, v in pick.items() if k != v}, derived=derived,
                        ignored=[c for c in names if c not in pick and c not in derived],
                        missing=[c for c in spec.used if c not in pick.values()])
    for col in spec.need:
        if col not in pick.values():
            raise ValueError(f"{path.name} lacks the required column {col!r} "
                             f"(columns: {', '.join(names)})")
    rows = pq.read_table(path, columns=list(pick)).to_pylist()
    out = [{pick[k]: v for k, v in row.items()} for row in rows]
    report.rows = len(out)
    return out, report


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
    layout, chosen, ignored = _locate(folder)
    tables: dict[str, list[dict[str, Any]]] = {}
    files: list[FileReport] = []
    for name, path in chosen.items():
        rows, report = _read_table(SPECS[name], path)
        tables[name] = rows
        files.append(report)
    prefix = "" if layout == "graphrag" else LEGACY_PREFIX
    missing = [f"{prefix}{t}.parquet" for t in TABLES if t not in chosen]
    return Output(folder, layout, _version(layout, files), tables, files, missing, ignored)


# --- value coercion (pandas writes NaN for missing numbers, lists may be numpy-like) -------

def _str(v: Any) -> str | None:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return str(v)


def _int(v: Any) -> int | None:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    try:
        return int(float(v))
    except (TypeError, ValueError):
        return None


def _float(v: Any) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _list(v: Any) -> list[Any]:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return []
    if isinstance(v, str):
        if v.startswith("["):
            try:
                return list(json.loads(v))
            except json.JSONDecodeError:
                pass
        return [v]
    return [x for x in v if x is not None]


def _json(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v)
        except json.JSONDecodeError:
            return v
    return v


def _findings(v: Any) -> list[dict[str, str]]:
    out = []
    for f in _list(_json(v)):
        f = _json(f)
        if isinstance(f, dict):
            out.append({"summary": str(f.get("summary") or ""),
                        "explanation": str(f.get("explanation") or "")})
        elif f:
            out.append({"summary": str(f), "explanation": ""})
    return out


def _metadata(v: Any) -> dict[str, Any]:
    v = _json(v)
    if not isinstance(v, dict):
        return {}
    return {str(k): x for k, x in v.items() if x is not None}


def _when(v: Any) -> tuple[str | None, datetime | None]:
    """GraphRAG's creation_date (string or timestamp) -> (text kept as is, parsed datetime)."""
    if isinstance(v, datetime):
        return v.isoformat(), v
    text = _str(v)
    if not text:
        return None, None
    try:
        return text, datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text, None


def _props(**kv: Any) -> dict[str, Any]:
    """Properties to SET: None dropped, so a second import never erases anything."""
    return {k: v for k, v in kv.items() if v is not None}


# --- planning: GraphRAG rows -> the rows our import statements take (pure) ---------------

@dataclass
class Plan:
    documents: list[dict[str, Any]] = field(default_factory=list)
    chunks: list[dict[str, Any]] = field(default_factory=list)
    next: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    mentions: list[dict[str, Any]] = field(default_factory=list)
    relationships: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    communities: list[dict[str, Any]] = field(default_factory=list)
    parents: list[dict[str, Any]] = field(default_factory=list)
    has_degree: bool = True
    warnings: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"documents": len(self.documents), "text_units": len(self.chunks),
                "entities": len(self.entities),
                "mentions": sum(len(m["chunk_ids"]) for m in self.mentions),
                "relationships": len(self.relationships), "claims": len(self.claims),
                "communities": len(self.communities),
                "community_reports": sum(1 for c in self.communities
                                         if c["props"].get("report_status") == "ok")}


def _plan_documents(out: Output, plan: Plan) -> dict[str, str]:
    """Documents; returns GraphRAG document id -> our id (SHA-256 of the cleaned text)."""
    ids: dict[str, str] = {}
    seen: set[str] = set()
    for i, d in enumerate(out.tables.get("documents", [])):
        gid = _str(d.get("id")) or f"graphrag-document-{i}"
        text = _str(d.get("text"))
        ours = hashlib.sha256(clean(text).strip().encode()).hexdigest() if text else gid
        ids[gid] = ours
        if ours in seen:
            plan.warnings.append(f"document {gid} has the same text as another: merged")
            continue
        seen.add(ours)
        title = _str(d.get("title")) or gid
        created_text, created = _when(d.get("creation_date"))
        meta = _metadata(d.get("metadata"))
        flat = {k: v for k, v in meta.items()
                if isinstance(v, str | int | float | bool) and k not in _DOC_KEYS}
        plan.documents.append({"id": ours, "created_at": created, "metadata": flat, "props": _props(
            title=title, path=title, sha256=ours if text else None, text=text, origin=ORIGIN,
            graphrag_id=gid, human_readable_id=_int(d.get("human_readable_id")),
            creation_date=created_text,
            graphrag_metadata=json.dumps(meta, sort_keys=True, default=str) if meta else None)})
    return ids


_DOC_KEYS = {"id", "title", "path", "sha256", "text", "created_at", "origin", "graphrag_id",
             "human_readable_id", "creation_date", "graphrag_metadata"}


def _plan_chunks(out: Output, plan: Plan, doc_ids: dict[str, str], encoding: str) -> set[str]:
    """Text units as chunks, in document order, with NEXT links; returns the chunk ids."""
    order: dict[str, dict[str, int]] = {}
    for d in out.tables.get("documents", []):
        gid = _str(d.get("id"))
        if gid:
            order[doc_ids[gid]] = {c: i for i, c in enumerate(_list(d.get("text_unit_ids")))}
    by_doc: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    unknown = 0
    for u in out.tables.get("text_units", []):
        docs = [doc_ids.get(str(x)) for x in _list(u.get("document_ids"))]
        unknown += sum(1 for x in docs if x is None)
        docs = list(dict.fromkeys(x for x in docs if x))
        text = _str(u.get("text")) or ""
        n_tokens = _int(u.get("n_tokens"))
        row = {"id": str(u["id"]), "document_ids": docs, "props": _props(
            text=text, n_tokens=n_tokens if n_tokens is not None else tokens.count(text, encoding),
            document_id=docs[0] if docs else None, graphrag_id=str(u["id"]),
            human_readable_id=_int(u.get("human_readable_id")))}
        by_doc[docs[0] if docs else None].append(row)
    if unknown:
        plan.warnings.append(f"{unknown} text_units.document_ids name no document: not linked")
    for doc, rows in by_doc.items():
        pos = order.get(doc or "", {})
        rows.sort(key=lambda r: (pos.get(r["id"], len(pos)),
                                 r["props"].get("human_readable_id", 0), r["id"]))
        for i, row in enumerate(rows):
            row["props"]["index"] = i
            if i and doc:
                plan.next.append({"prev": rows[i - 1]["id"], "id": row["id"]})
        plan.chunks.extend(rows)
    return {r["id"] for r in plan.chunks}


def _plan_entities(out: Output, plan: Plan, chunk_ids: set[str]) -> tuple[dict[str, str],
                                                                          dict[str, str]]:
    """Entities and their text-unit links; returns (GraphRAG id -> key, title -> key)."""
    by_id: dict[str, str] = {}
    by_title: dict[str, str] = {}
    links: dict[str, list[str]] = {}
    types: dict[str, str] = {}
    dup = skipped = 0
    degree_col = any(e.get("degree") is not None for e in out.tables["entities"])
    node_degree = {}
    if not degree_col:  # before 2.0 the degree sat in create_final_nodes
        node_degree = {str(n["title"]): _int(n.get("degree"))
                       for n in out.tables.get("nodes", []) if n.get("degree") is not None}
    plan.has_degree = degree_col or bool(node_degree)
    for e in out.tables["entities"]:
        title = _str(e.get("title")) or ""
        key = entity_key(title)
        if not key:
            skipped += 1
            continue
        gid = _str(e.get("id"))
        if gid:
            by_id[gid] = key
        by_title[title] = key
        units = [str(x) for x in _list(e.get("text_unit_ids"))]
        if key in links:
            dup += 1
            links[key] = list(dict.fromkeys(links[key] + units))
            continue
        links[key] = units
        types[key] = _str(e.get("type")) or "unknown"
        degree = _int(e.get("degree")) if degree_col else node_degree.get(title)
        plan.entities.append({"key": key, "props": _props(
            name=title, type=types[key], description=_str(e.get("description")) or "",
            degree=degree, frequency=_int(e.get("frequency")), graphrag_id=gid,
            human_readable_id=_int(e.get("human_readable_id")), origin=ORIGIN)})
    if dup:
        plan.warnings.append(f"{dup} entities share a normalised name with another: merged")
    if skipped:
        plan.warnings.append(f"{skipped} entities without a usable title: skipped")
    for u in out.tables.get("text_units", []):  # the reverse links, for completeness
        for eid in _list(u.get("entity_ids")):
            key = by_id.get(str(eid))
            if key and str(u["id"]) not in links[key]:
                links[key].append(str(u["id"]))
    dangling = 0
    for key, units in links.items():
        known = [c for c in units if c in chunk_ids]
        dangling += len(units) - len(known)
        if known:
            plan.mentions.append({"key": key, "type": types[key], "chunk_ids": known})
    if dangling and chunk_ids:
        plan.warnings.append(f"{dangling} entity text_unit_ids name no text unit: not linked")
    return by_id, by_title


def _plan_relationships(out: Output, plan: Plan, by_title: dict[str, str]) -> None:
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    placeholders: dict[str, str] = {}
    known = set(by_title.values())
    merged = skipped = 0
    for r in out.tables["relationships"]:
        ends = []
        for col in ("source", "target"):
            title = _str(r.get(col)) or ""
            key = by_title.get(title) or entity_key(title)
            if key and key not in known and key not in placeholders:
                placeholders[key] = title
            ends.append(key)
        s, t = ends
        if not s or not t or s == t:
            skipped += 1
            continue
        a, b = sorted((s, t))
        chunk_ids = [str(x) for x in dict.fromkeys(_list(r.get("text_unit_ids")))]
        weight = _float(r.get("weight"))
        weight = float(len(chunk_ids) or 1) if weight is None else weight
        description = _str(r.get("description")) or ""
        if (a, b) in pairs:
            merged += 1
            p = pairs[(a, b)]["props"]
            chunk_ids = list(dict.fromkeys(p["chunk_ids"] + chunk_ids))
            weight += p["weight"]
            description = "\n".join(x for x in (p["description"], description) if x)
            gid, hid, rev = p.get("graphrag_id"), p.get("human_readable_id"), p["graphrag_reversed"]
        else:
            gid, hid, rev = _str(r.get("id")), _int(r.get("human_readable_id")), s > t
        n = len(chunk_ids)
        strength = weight / n if n else weight
        pairs[(a, b)] = {"source_key": a, "target_key": b, "props": _props(
            description=description, weight=weight, strength=strength, chunk_ids=chunk_ids,
            descriptions=[description] * n, strengths=[strength] * n, graphrag_id=gid,
            human_readable_id=hid, graphrag_reversed=rev)}
    plan.relationships = list(pairs.values())
    for key, title in placeholders.items():
        plan.entities.append({"key": key, "props": _props(
            name=title, type="unknown", description="", origin=ORIGIN)})
    if placeholders:
        plan.warnings.append(f"{len(placeholders)} relationship endpoints are not in entities: "
                             "created with type 'unknown'")
    if merged:
        plan.warnings.append(f"{merged} relationships repeat an entity pair (either direction): "
                             "merged, weights summed")
    if skipped:
        plan.warnings.append(f"{skipped} relationships without two distinct endpoints: skipped")


def _plan_claims(out: Output, plan: Plan, by_title: dict[str, str]) -> None:
    for i, c in enumerate(out.tables.get("covariates", [])):
        subject = _str(c.get("subject_id")) or ""
        key = by_title.get(subject) or entity_key(subject)
        gid = _str(c.get("id"))
        cid = gid or hashlib.sha256(f"graphrag-claim|{i}|{subject}".encode()).hexdigest()[:32]
        plan.claims.append({"id": cid, "subject_key": key,
                            "chunk_id": _str(c.get("text_unit_id")), "props": _props(
            subject=subject, object=_str(c.get("object_id")), type=_str(c.get("type")),
            status=_str(c.get("status")), start_date=_str(c.get("start_date")),
            end_date=_str(c.get("end_date")), description=_str(c.get("description")),
            source_quote=_str(c.get("source_text")), chunk_id=_str(c.get("text_unit_id")),
            covariate_type=_str(c.get("covariate_type")), graphrag_id=gid,
            human_readable_id=_int(c.get("human_readable_id")), origin=ORIGIN)})


def _markdown(title: str, summary: str, rating: float | None, explanation: str,
              findings: list[dict[str, str]]) -> str:
    parts = [f"# {title}", summary]
    if rating is not None:
        parts.append(f"Rating: {rating:g} - {explanation}".rstrip(" -"))
    for f in findings:
        parts += [f"## {f['summary']}", f["explanation"]]
    return "\n\n".join(p for p in parts if p and p.strip())


def _membership(out: Output, plan: Plan, by_id: dict[str, str],
                by_title: dict[str, str]) -> tuple[dict[int, list[str]], dict[int, int]]:
    """community -> member keys, and (before 1.0) community -> parent from create_final_nodes."""
    members: dict[int, list[str]] = defaultdict(list)
    comms = out.tables["communities"]
    if any("entity_ids" in f.used for f in out.files if f.table == "communities"):
        unknown = 0
        for c in comms:
            cid = _int(c.get("community"))
            for eid in _list(c.get("entity_ids")):
                key = by_id.get(str(eid))
                if key is None:
                    unknown += 1
                elif cid is not None and key not in members[cid]:
                    members[cid].append(key)
        if unknown:
            plan.warnings.append(f"{unknown} community entity_ids name no entity: skipped")
        return members, {}
    nodes = out.tables.get("nodes")
    if not nodes:
        raise ValueError("communities.parquet has no entity_ids column and there is no "
                         "create_final_nodes.parquet to take community membership from")
    at: dict[tuple[str, int], int] = {}
    for n in nodes:
        cid, level, key = _int(n.get("community")), _int(n.get("level")), by_title.get(
            _str(n.get("title")) or "")
        if cid is None or cid < 0 or level is None or key is None:
            continue
        at[(key, level)] = cid
        if key not in members[cid]:
            members[cid].append(key)
    votes: dict[int, Counter[int]] = defaultdict(Counter)
    for (key, level), cid in at.items():
        if (key, level - 1) in at:
            votes[cid][at[(key, level - 1)]] += 1
    return members, {cid: v.most_common(1)[0][0] for cid, v in votes.items()}


def _plan_communities(out: Output, plan: Plan, by_id: dict[str, str],
                      by_title: dict[str, str]) -> None:
    comms = {c: row for row in out.tables["communities"]
             if (c := _int(row.get("community"))) is not None}
    reports = {c: row for row in out.tables["community_reports"]
               if (c := _int(row.get("community"))) is not None}
    members, node_parents = _membership(out, plan, by_id, by_title)
    has_gid = any("community" in f.used for f in out.files if f.table == "communities")
    rows: dict[int, dict[str, Any]] = {}
    for cid in sorted(set(comms) | set(reports)):
        c, r = comms.get(cid, {}), reports.get(cid, {})
        level = _int(c.get("level"))
        level = _int(r.get("level")) if level is None else level
        if level is None:
            plan.warnings.append(f"community {cid} has no level: skipped")
            continue
        parent = next((p for p in (_int(c.get("parent")), _int(r.get("parent")),
                                   node_parents.get(cid)) if p is not None), None)
        keys = members.get(cid, [])
        props = _props(
            scope=GENERAL, level=level, carried=False, origin=ORIGIN,
            parent=parent if parent is not None and parent >= 0 else None,
            size=_int(c.get("size")) or _int(r.get("size")) or len(keys),
            graphrag_id=_str(c.get("id")) if has_gid else None,
            human_readable_id=_int(c.get("human_readable_id")),
            community_title=_str(c.get("title")),
            period=_str(c.get("period")) or _str(r.get("period")),
            title=_str(r.get("title")) or _str(c.get("title")) or f"Community {cid}")
        if r:
            props.update(_report_props(r, props["title"]))
        rows[cid] = {"id": cid, "members": keys, "props": props,
                     "children": [x for x in (_int(v) for v in
                                              _list(c.get("children") or r.get("children")))
                                  if x is not None]}
    derived: dict[int, set[int]] = defaultdict(set)
    for cid, row in rows.items():
        p = row["props"].get("parent")
        if p is None:
            continue
        if p not in rows:
            plan.warnings.append(f"community {cid} names a missing parent {p}")
            continue
        if rows[p]["props"]["level"] != row["props"]["level"] - 1:
            plan.warnings.append(f"community {cid} (level {row['props']['level']}) has parent "
                                 f"{p} at level {rows[p]['props']['level']}")
        derived[p].add(cid)
        plan.parents.append({"parent": p, "id": cid})
    odd = [cid for cid, row in rows.items()
           if row["children"] and set(row["children"]) != derived.get(cid, set())]
    if odd:
        plan.warnings.append(f"children lists disagree with parent links for communities "
                             f"{odd[:10]}: parent links used")
    if not any(r["props"].get("report_status") for r in rows.values()):
        plan.warnings.append("no community report could be read: `ask` has nothing to use")
    plan.communities = [{k: v for k, v in row.items() if k != "children"}
                        for row in rows.values()]


def _report_props(r: dict[str, Any], title: str) -> dict[str, Any]:
    findings = _findings(r.get("findings"))
    rank = _float(r.get("rank"))
    summary = _str(r.get("summary")) or ""
    explanation = _str(r.get("rating_explanation")) or ""
    content = _str(r.get("full_content")) or _markdown(title, summary, rank, explanation,
                                                        findings)
    fcj = r.get("full_content_json")
    ok = bool(content.strip())
    return _props(
        summary=summary, full_content=content, rating=rank, rank=rank,
        rating_explanation=explanation, findings=json.dumps(findings),
        full_content_json=fcj if isinstance(fcj, str) or fcj is None else json.dumps(fcj),
        graphrag_report_id=_str(r.get("id")), report_status="ok" if ok else "failed",
        report_error=None if ok else "empty report in the GraphRAG output")


def plan_import(out: Output, encoding: str = "cl100k_base") -> Plan:
    """The rows each import statement takes, from a read GraphRAG output (no database)."""
    plan = Plan()
    doc_ids = _plan_documents(out, plan)
    chunk_ids = _plan_chunks(out, plan, doc_ids, encoding)
    by_id, by_title = _plan_entities(out, plan, chunk_ids)
    _plan_relationships(out, plan, by_title)
    _plan_claims(out, plan, by_title)
    _plan_communities(out, plan, by_id, by_title)
    return plan


# --- importing -------------------------------------------------------------------------

def _check_ids(graph: Graph, plan: Plan) -> list[dict[str, Any]]:
    """Existing communities whose id an imported community would take over."""
    ours = {c["id"]: c["props"].get("graphrag_id") for c in plan.communities}
    clashes = []
    for row in graph.run("import_existing_communities", ids=list(ours)):
        same = (row["origin"] == ORIGIN and row["scope"] == GENERAL
                and row["graphrag_id"] == ours[row["id"]])
        if not same:
            clashes.append(row)
    return clashes


def import_graphrag(graph: Graph, settings: Settings, folder: Path, *,
                    replace: bool = False) -> ImportReport:
    """Import a Microsoft GraphRAG output folder (parquet) into the graph.

    GraphRAG's ``community`` numbers become ``Community.id`` because its reports cite them, so
    they must not collide with communities already in the graph: a clash raises ValueError
    (``replace=True`` first deletes the general-scope communities; topic communities still
    clash, run ``topics build`` after the import instead). Afterwards the index is marked
    clean (``graph_dirty=false``: ``ingest --resume`` does not recluster) and topics stale
    (``topics_dirty=true``: ``topics build`` can run).

    Raises FileNotFoundError / ValueError (naming the file or column) for an unusable folder.
    """
    out = read_output(Path(folder))
    plan = plan_import(out, settings.encoding)
    graph.ensure_schema()
    clashes = [c for c in _check_ids(graph, plan) if not (replace and c["scope"] == GENERAL)]
    if clashes:
        where = Counter(f"{c['scope']}{' (' + str(c['origin']) + ')' if c['origin'] else ''}"
                        for c in clashes)
        fixes = []
        if any(c["scope"] == GENERAL for c in clashes):
            fixes.append("pass --replace to delete the general-scope communities first")
        if any(c["scope"] != GENERAL for c in clashes):
            fixes.append("topic communities hold some of them: import into an empty database, "
                         "then run `neo4j-retag topics build`")
        raise ValueError(
            f"{len(clashes)} GraphRAG community ids are already used in this graph (ids "
            f"{[c['id'] for c in clashes[:8]]}, by scope {dict(where)}); GraphRAG's reports cite "
            f"these numbers, so they are kept: {'; '.join(fixes)}")
    if replace:
        graph.run("delete_communities", scope=GENERAL)
    graph.write("import_documents", plan.documents)
    graph.write("import_chunks", plan.chunks)
    graph.write("import_next", plan.next)
    graph.write("import_entities", plan.entities)
    graph.write("import_mentions", plan.mentions)
    graph.write("import_relationships", plan.relationships)
    graph.write("import_claims", plan.claims)
    graph.write("import_communities", plan.communities)
    graph.write("import_parents", plan.parents)
    if not plan.has_degree:
        graph.run("set_degrees")
    graph.run("set_index_meta", props={"graph_dirty": False, "topics_dirty": True})
    return ImportReport(
        folder=str(out.folder), layout=out.layout, version=out.version, files=out.files,
        missing_optional=out.missing_optional, ignored_files=out.ignored_files,
        counts=plan.counts(), levels=graph.run("import_summary"), warnings=plan.warnings)


# --- exporting -------------------------------------------------------------------------

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


def _uid(kind: str, key: object) -> str:
    return str(uuid.uuid5(_NS, f"{kind}:{key}"))


def _borders(head: str, tail: str) -> list[int]:
    """Every k > 0 with tail ending in head[:k], longest first (KMP prefix function)."""
    s = head + "\x00" + tail[-len(head):]
    pi = [0] * len(s)
    for i in range(1, len(s)):
        k = pi[i - 1]
        while k and s[i] != s[k]:
            k = pi[k - 1]
        pi[i] = k + (s[i] == s[k])
    out, k = [], pi[-1]
    while k:
        out.append(k)
        k = pi[k - 1]
    return out


def join_chunks(texts: list[str], overlap: int | None = None, enc: str = "cl100k_base") -> str:
    """A document's text from its overlapping text units.

    Consecutive units overlap by a suffix/prefix; with ``overlap`` (tokens, CHUNK_OVERLAP) the
    candidate whose token count is nearest to it wins (repetitive text has longer false
    overlaps), else the longest. Units that do not overlap are joined by a newline.
    """
    out = texts[0] if texts else ""
    for nxt in texts[1:]:
        cands = _borders(nxt, out) if nxt and out else []
        k = cands[0] if cands else 0
        if cands and overlap:
            gap, neg = min((abs(tokens.count(nxt[:c], enc) - overlap), -c) for c in cands)
            k = -neg if gap <= 2 else k
        out += nxt[k:] if k else ("\n" + nxt)
    return out


def _write(folder: Path, name: str, rows: list[dict[str, Any]],
           extra: dict[str, pa.Array] | None = None) -> int:
    table = pa.Table.from_pylist(rows, schema=SCHEMAS[name])
    for col, arr in (extra or {}).items():
        table = table.append_column(col, arr)
    pq.write_table(table, folder / f"{name}.parquet")
    return table.num_rows


def _hid(stored: Any, i: int) -> int:
    return stored if isinstance(stored, int) else i


def export_graphrag(graph: Graph, settings: Settings, folder: Path) -> ExportReport:
    """Write the graph as a GraphRAG output folder of parquet tables.

    The columns are GraphRAG 3.x's (``graphrag/data_model/schemas.py``: text_units.document_id,
    documents.raw_data) plus the two 2.x spellings (text_units.document_ids,
    documents.metadata), so that either release reads the folder.

    Stored GraphRAG ids are written back; elements born here get deterministic UUIDs (uuid5 of
    their key). Only general-scope communities are written (GraphRAG has no topics). Derived
    columns are recomputed: text_units.relationship_ids / covariate_ids, relationships.
    combined_degree, communities.relationship_ids / text_unit_ids (GraphRAG's definitions).
    A relationship's weight is written as stored: for imported ones GraphRAG's weight, for
    extracted ones the number of supporting text units.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    files: dict[str, int] = {}

    units = graph.run("export_text_units")
    ents = graph.run("export_entities")
    rels = graph.run("export_relationships")
    key_id = {e["key"]: e["graphrag_id"] or _uid("entity", e["key"]) for e in ents}
    degree = {e["key"]: e["degree"] if e["degree"] is not None else e["related"] for e in ents}
    rel_id = {(r["source_key"], r["target_key"]): r["graphrag_id"]
              or _uid("relationship", f"{r['source_key']}|{r['target_key']}") for r in rels}
    rels_of_chunk: dict[str, list[str]] = defaultdict(list)
    for r in rels:
        for c in r["chunk_ids"] or []:
            rels_of_chunk[c].append(rel_id[(r["source_key"], r["target_key"])])

    text_of = {u["id"]: u["text"] or "" for u in units}
    docs = graph.run("export_documents")
    doc_rows, metas = [], []
    for i, d in enumerate(docs):
        p = d["props"]
        text = p.get("text") or join_chunks([text_of.get(c, "") for c in d["chunk_ids"]],
                                           settings.chunk_overlap, settings.encoding)
        meta = json.loads(p["graphrag_metadata"]) if p.get("graphrag_metadata") else {
            k: v for k, v in p.items() if k not in _DOC_KEYS}
        metas.append(meta or None)
        doc_rows.append({"id": p.get("graphrag_id") or p["id"],
                         "human_readable_id": _hid(p.get("human_readable_id"), i + 1),
                         "title": p.get("title"), "text": text, "text_unit_ids": d["chunk_ids"],
                         "creation_date": p.get("creation_date") or d["created_at"]})
    meta_arr = pa.array(metas) if any(metas) else pa.nulls(len(metas))
    files["documents"] = _write(folder, "documents", doc_rows,
                                {"raw_data": meta_arr, "metadata": meta_arr})

    files["text_units"] = _write(folder, "text_units", [
        {"id": u["id"], "human_readable_id": _hid(u["human_readable_id"], i), "text": u["text"],
         "n_tokens": u["n_tokens"], "document_ids": u["document_ids"],
         "document_id": u["document_ids"][0] if u["document_ids"] else None,
         "entity_ids": [key_id[k] for k in u["entity_keys"]],
         "relationship_ids": rels_of_chunk.get(u["id"], []), "covariate_ids": u["claim_ids"]}
        for i, u in enumerate(units)])

    files["entities"] = _write(folder, "entities", [
        {"id": key_id[e["key"]], "human_readable_id": _hid(e["human_readable_id"], i),
         "title": e["name"], "type": e["type"], "description": e["description"],
         "text_unit_ids": e["chunk_ids"],
         "frequency": e["frequency"] if e["frequency"] is not None else len(e["chunk_ids"]),
         "degree": degree[e["key"]]} for i, e in enumerate(ents)])

    files["relationships"] = _write(folder, "relationships", [
        {"id": rel_id[(r["source_key"], r["target_key"])],
         "human_readable_id": _hid(r["human_readable_id"], i),
         "source": r["target"] if r["reversed"] else r["source"],
         "target": r["source"] if r["reversed"] else r["target"],
         "description": r["description"], "weight": r["weight"],
         "combined_degree": degree[r["source_key"]] + degree[r["target_key"]],
         "text_unit_ids": r["chunk_ids"] or []} for i, r in enumerate(rels)])

    comms = graph.run("export_communities")
    inside = _internal(comms, rels)
    rel_chunks = {(r["source_key"], r["target_key"]): r["chunk_ids"] or [] for r in rels}
    comm_rows, report_rows = [], []
    for c in comms:
        p = c["props"]
        cid = p["id"]
        rel_keys = inside.get(cid, [])
        base = {"human_readable_id": _hid(p.get("human_readable_id"), cid), "community": cid,
                "level": p["level"], "parent": p["parent"] if p.get("parent") is not None
                else -1, "children": c["children"], "period": p.get("period")
                or date.today().isoformat(), "size": p.get("size") or len(c["member_keys"])}
        comm_rows.append({**base, "id": p.get("graphrag_id") or _uid("community", cid),
                          "title": p.get("community_title") or f"Community {cid}",
                          "entity_ids": [key_id[k] for k in c["member_keys"]],
                          "relationship_ids": sorted(rel_id[k] for k in rel_keys),
                          "text_unit_ids": sorted({u for k in rel_keys
                                                   for u in rel_chunks[k]})})
        if p.get("report_status") == "ok":
            report_rows.append({**base, **_report_row(p)})
    files["communities"] = _write(folder, "communities", comm_rows)
    files["community_reports"] = _write(folder, "community_reports", report_rows)

    claims = graph.run("export_claims")
    if claims:
        files["covariates"] = _write(folder, "covariates", [
            {"id": p["id"], "human_readable_id": _hid(p.get("human_readable_id"), i),
             "covariate_type": p.get("covariate_type") or "claim", "type": p.get("type"),
             "description": p.get("description"), "subject_id": p.get("subject"),
             "object_id": p.get("object"), "status": p.get("status"),
             "start_date": p.get("start_date"), "end_date": p.get("end_date"),
             "source_text": p.get("source_quote"), "text_unit_id": p.get("chunk_id")}
            for i, p in enumerate(r["props"] for r in claims)])
    topic_comms = graph.run("export_topic_communities")[0]["n"]
    if topic_comms:
        notes.append(f"{topic_comms} topic communities not exported (GraphRAG has no topics)")
    return ExportReport(folder=str(folder), files=files, notes=notes)


def _internal(comms: list[dict[str, Any]],
              rels: list[dict[str, Any]]) -> dict[int, list[tuple[str, str]]]:
    """Relationships wholly inside each community (both ends members), by community id."""
    at: dict[str, set[int]] = defaultdict(set)
    for c in comms:
        for k in c["member_keys"]:
            at[k].add(c["props"]["id"])
    out: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for r in rels:
        a, b = r["source_key"], r["target_key"]
        for cid in at.get(a, set()) & at.get(b, set()):
            out[cid].append((a, b))
    return out


def _report_row(p: dict[str, Any]) -> dict[str, Any]:
    findings = json.loads(p["findings"]) if p.get("findings") else []
    rank = p.get("rank") if p.get("rank") is not None else p.get("rating")
    fcj = p.get("full_content_json") or json.dumps({
        "title": p.get("title"), "summary": p.get("summary"), "rating": rank,
        "rating_explanation": p.get("rating_explanation"), "findings": findings})
    return {"id": p.get("graphrag_report_id") or _uid("report", p["id"]),
            "title": p.get("title"), "summary": p.get("summary"),
            "full_content": p.get("full_content"), "rank": rank,
            "rating_explanation": p.get("rating_explanation"), "findings": findings,
            "full_content_json": fcj}
