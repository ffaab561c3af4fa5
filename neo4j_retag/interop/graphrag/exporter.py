"""Exporting the graph as a Microsoft GraphRAG output folder of parquet tables.

:func:`export_graphrag` writes what :mod:`neo4j_retag.graphrag_tables` reads, so import ->
export -> import is lossless on the fields kept.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel

from ... import tokens
from ...config import Settings
from ...db import Graph
from .tables import DOC_KEYS, Row

_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/neo4j-retag/graphrag-export")

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


def _uid(kind: str, key: object) -> str:
    return str(uuid.uuid5(_NS, f"{kind}:{key}"))


def _hid(stored: Any, i: int) -> int:
    return stored if isinstance(stored, int) else i


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


def _write(folder: Path, name: str, rows: list[Row],
           extra: dict[str, pa.Array] | None = None) -> int:
    table = pa.Table.from_pylist(rows, schema=SCHEMAS[name])
    for col, arr in (extra or {}).items():
        table = table.append_column(col, arr)
    pq.write_table(table, folder / f"{name}.parquet")
    return table.num_rows


def _internal(comms: list[Row],
              rels: list[Row]) -> dict[int, list[tuple[str, str]]]:
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


def _report_row(p: Row) -> Row:
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


def export_graphrag(graph: Graph, settings: Settings, folder: Path) -> ExportReport:
    """Write the graph as a GraphRAG output folder of parquet tables.

    The columns are GraphRAG 3.x's (``graphrag/data_model/schemas.py``: text_units.document_id,
    documents.raw_data) plus the two 2.x spellings (text_units.document_ids,
    documents.metadata), so that either release reads the folder.

    Stored GraphRAG ids are written back; elements born here get deterministic UUIDs (uuid5 of
    their key). Only general-scope communities are written (GraphRAG has no topics), without
    carried-down copies and the communities an import's repair made (see :mod:`.repair`). Derived
    columns are recomputed: text_units.relationship_ids / covariate_ids, relationships.
    combined_degree, communities.relationship_ids / text_unit_ids (GraphRAG's definitions).
    A relationship's weight is written as stored: for imported ones GraphRAG's weight, for
    extracted ones the number of supporting text units.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    files: dict[str, int] = {}

    units = graph.run("interop/export_text_units")
    ents = graph.run("interop/export_entities")
    rels = graph.run("interop/export_relationships")
    key_id = {e["key"]: e["graphrag_id"] or _uid("entity", e["key"]) for e in ents}
    degree = {e["key"]: e["degree"] if e["degree"] is not None else e["related"] for e in ents}
    rel_id = {(r["source_key"], r["target_key"]): r["graphrag_id"]
              or _uid("relationship", f"{r['source_key']}|{r['target_key']}") for r in rels}
    rel_chunks = {(r["source_key"], r["target_key"]): r["chunk_ids"] or [] for r in rels}
    rels_of_chunk: dict[str, list[str]] = defaultdict(list)
    for r in rels:
        for c in r["chunk_ids"] or []:
            rels_of_chunk[c].append(rel_id[(r["source_key"], r["target_key"])])

    text_of = {u["id"]: u["text"] or "" for u in units}
    docs = graph.run("interop/export_documents")
    doc_rows, metas = [], []
    for i, d in enumerate(docs):
        p = d["props"]
        text = p.get("text") or join_chunks([text_of.get(c, "") for c in d["chunk_ids"]],
                                           settings.index.chunk_overlap, settings.encoding)
        meta = json.loads(p["graphrag_metadata"]) if p.get("graphrag_metadata") else {
            k: v for k, v in p.items() if k not in DOC_KEYS}
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

    comms = graph.run("interop/export_communities")
    # carried copies and the import's repairs are not GraphRAG's: its query reads every level
    # <= L (a copy would count twice) and an import makes them again (repair.py)
    made = {c["props"]["id"] for c in comms
            if c["props"].get("carried") or c["props"].get("graphrag_repair")}
    if made:
        notes.append(f"{len(made)} carried-down or repair-made communities not exported "
                     "(GraphRAG's query covers deeper levels itself; an import makes them again)")
    comms = [c for c in comms if c["props"]["id"] not in made]
    inside = _internal(comms, rels)
    comm_rows, report_rows = [], []
    for c in comms:
        p = c["props"]
        cid = p["id"]
        rel_keys = inside.get(cid, [])
        base = {"human_readable_id": _hid(p.get("human_readable_id"), cid), "community": cid,
                "level": p["level"], "parent": p["parent"] if p.get("parent") is not None
                else -1, "children": [k for k in c["children"] if k not in made],
                "period": p.get("period")
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

    claims = graph.run("interop/export_claims")
    if claims:
        files["covariates"] = _write(folder, "covariates", [
            {"id": p["id"], "human_readable_id": _hid(p.get("human_readable_id"), i),
             "covariate_type": p.get("covariate_type") or "claim", "type": p.get("type"),
             "description": p.get("description"), "subject_id": p.get("subject"),
             "object_id": p.get("object"), "status": p.get("status"),
             "start_date": p.get("start_date"), "end_date": p.get("end_date"),
             "source_text": p.get("source_quote"), "text_unit_id": p.get("chunk_id")}
            for i, p in enumerate(r["props"] for r in claims)])
    topic_comms = graph.run("interop/export_topic_communities")[0]["n"]
    if topic_comms:
        notes.append(f"{topic_comms} topic communities not exported (GraphRAG has no topics)")
    return ExportReport(folder=str(folder), files=files, notes=notes)


def export_folder(settings: Settings, folder: Path) -> ExportReport:
    """:func:`export_graphrag` on a connection of its own (`neo4j-retag export`)."""
    with Graph(settings) as graph:
        return export_graphrag(graph, settings, folder)
