"""Planning a GraphRAG export: the rows the graph gave -> GraphRAG's tables (pure).

The mirror of :mod:`.plan`: :func:`.exporter.read_export` reads the graph
(``cypher/interop/export_*``) into an :class:`ExportSource`, :func:`plan_export` maps it to
the rows of each parquet table, :func:`.exporter.write_tables` writes them. The columns are
GraphRAG 3.x's (``graphrag/data_model/schemas.py``: text_units.document_id,
documents.raw_data) plus the two 2.x spellings (text_units.document_ids, documents.metadata),
so that either release reads the folder.

Stored GraphRAG ids are written back; elements born here get deterministic UUIDs (uuid5 of
their key). Only general-scope communities are written (GraphRAG has no topics), without
carried-down copies and the communities an import's repair made (see :mod:`.repair`). Derived
columns are recomputed: text_units.relationship_ids / covariate_ids, relationships.
combined_degree, communities.relationship_ids / text_unit_ids (GraphRAG's definitions).
A relationship's weight is written as stored: for imported ones GraphRAG's weight, for
extracted ones the number of supporting text units.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ... import tokens
from .tables import DOC_KEYS, Row

_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/neo4j-retag/graphrag-export")


@dataclass
class ExportSource:
    """What an export reads from the graph: the rows of ``cypher/interop/export_*.cypher``
    (``communities`` general-scope only; ``topic_communities`` only counted)."""

    units: list[Row] = field(default_factory=list)
    entities: list[Row] = field(default_factory=list)
    relationships: list[Row] = field(default_factory=list)
    documents: list[Row] = field(default_factory=list)
    communities: list[Row] = field(default_factory=list)
    claims: list[Row] = field(default_factory=list)
    topic_communities: int = 0


@dataclass
class ExportPlan:
    """GraphRAG's tables as rows (``tables``: name -> rows, in write order; ``covariates``
    only when there are claims), each document's metadata (``documents.raw_data`` and
    ``metadata``: a column of JSON-like values), and notes on what was left out."""

    tables: dict[str, list[Row]] = field(default_factory=dict)
    doc_metadata: list[dict[str, Any] | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


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


class _Ids:
    """The GraphRAG ids of entities and relationships, and what derives from them."""

    def __init__(self, src: ExportSource) -> None:
        self.entity = {e["key"]: e["graphrag_id"] or _uid("entity", e["key"])
                       for e in src.entities}
        self.degree = {e["key"]: e["degree"] if e["degree"] is not None else e["related"]
                       for e in src.entities}
        self.rel = {(r["source_key"], r["target_key"]): r["graphrag_id"]
                    or _uid("relationship", f"{r['source_key']}|{r['target_key']}")
                    for r in src.relationships}
        self.rel_units = {(r["source_key"], r["target_key"]): r["chunk_ids"] or []
                          for r in src.relationships}
        self.rels_of_unit: dict[str, list[str]] = defaultdict(list)
        for r in src.relationships:
            for c in r["chunk_ids"] or []:
                self.rels_of_unit[c].append(self.rel[(r["source_key"], r["target_key"])])


def _documents(src: ExportSource, overlap: int, enc: str,
               plan: ExportPlan) -> list[Row]:
    text_of = {u["id"]: u["text"] or "" for u in src.units}
    rows = []
    for i, d in enumerate(src.documents):
        p = d["props"]
        text = p.get("text") or join_chunks([text_of.get(c, "") for c in d["chunk_ids"]],
                                           overlap, enc)
        meta = json.loads(p["graphrag_metadata"]) if p.get("graphrag_metadata") else {
            k: v for k, v in p.items() if k not in DOC_KEYS}
        plan.doc_metadata.append(meta or None)
        rows.append({"id": p.get("graphrag_id") or p["id"],
                     "human_readable_id": _hid(p.get("human_readable_id"), i + 1),
                     "title": p.get("title"), "text": text, "text_unit_ids": d["chunk_ids"],
                     "creation_date": p.get("creation_date") or d["created_at"]})
    return rows


def _text_units(src: ExportSource, ids: _Ids) -> list[Row]:
    return [{"id": u["id"], "human_readable_id": _hid(u["human_readable_id"], i),
             "text": u["text"], "n_tokens": u["n_tokens"], "document_ids": u["document_ids"],
             "document_id": u["document_ids"][0] if u["document_ids"] else None,
             "entity_ids": [ids.entity[k] for k in u["entity_keys"]],
             "relationship_ids": ids.rels_of_unit.get(u["id"], []),
             "covariate_ids": u["claim_ids"]} for i, u in enumerate(src.units)]


def _entities(src: ExportSource, ids: _Ids) -> list[Row]:
    return [{"id": ids.entity[e["key"]], "human_readable_id": _hid(e["human_readable_id"], i),
             "title": e["name"], "type": e["type"], "description": e["description"],
             "text_unit_ids": e["chunk_ids"],
             "frequency": e["frequency"] if e["frequency"] is not None else len(e["chunk_ids"]),
             "degree": ids.degree[e["key"]]} for i, e in enumerate(src.entities)]


def _relationships(src: ExportSource, ids: _Ids) -> list[Row]:
    return [{"id": ids.rel[(r["source_key"], r["target_key"])],
             "human_readable_id": _hid(r["human_readable_id"], i),
             "source": r["target"] if r["reversed"] else r["source"],
             "target": r["source"] if r["reversed"] else r["target"],
             "description": r["description"], "weight": r["weight"],
             "combined_degree": ids.degree[r["source_key"]] + ids.degree[r["target_key"]],
             "text_unit_ids": r["chunk_ids"] or []} for i, r in enumerate(src.relationships)]


def _internal(comms: list[Row], rels: list[Row]) -> dict[int, list[tuple[str, str]]]:
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


def _communities(src: ExportSource, ids: _Ids, today: str,
                 plan: ExportPlan) -> tuple[list[Row], list[Row]]:
    """(communities rows, community_reports rows)."""
    # carried copies and the import's repairs are not GraphRAG's: its query reads every level
    # <= L (a copy would count twice) and an import makes them again (repair.py)
    made = {c["props"]["id"] for c in src.communities
            if c["props"].get("carried") or c["props"].get("graphrag_repair")}
    if made:
        plan.notes.append(f"{len(made)} carried-down or repair-made communities not exported "
                          "(GraphRAG's query covers deeper levels itself; an import makes "
                          "them again)")
    comms = [c for c in src.communities if c["props"]["id"] not in made]
    inside = _internal(comms, src.relationships)
    comm_rows, report_rows = [], []
    for c in comms:
        p = c["props"]
        cid = p["id"]
        rel_keys = inside.get(cid, [])
        base = {"human_readable_id": _hid(p.get("human_readable_id"), cid), "community": cid,
                "level": p["level"],
                "parent": p["parent"] if p.get("parent") is not None else -1,
                "children": [k for k in c["children"] if k not in made],
                "period": p.get("period") or today,
                "size": p.get("size") or len(c["member_keys"])}
        comm_rows.append({**base, "id": p.get("graphrag_id") or _uid("community", cid),
                          "title": p.get("community_title") or f"Community {cid}",
                          "entity_ids": [ids.entity[k] for k in c["member_keys"]],
                          "relationship_ids": sorted(ids.rel[k] for k in rel_keys),
                          "text_unit_ids": sorted({u for k in rel_keys
                                                   for u in ids.rel_units[k]})})
        if p.get("report_status") == "ok":
            report_rows.append({**base, **_report_row(p)})
    return comm_rows, report_rows


def _covariates(src: ExportSource) -> list[Row]:
    return [{"id": p["id"], "human_readable_id": _hid(p.get("human_readable_id"), i),
             "covariate_type": p.get("covariate_type") or "claim", "type": p.get("type"),
             "description": p.get("description"), "subject_id": p.get("subject"),
             "object_id": p.get("object"), "status": p.get("status"),
             "start_date": p.get("start_date"), "end_date": p.get("end_date"),
             "source_text": p.get("source_quote"), "text_unit_id": p.get("chunk_id")}
            for i, p in enumerate(r["props"] for r in src.claims)]


def plan_export(src: ExportSource, *, overlap: int, encoding: str, today: str) -> ExportPlan:
    """GraphRAG's tables from what the graph gave (see the module doc). ``overlap`` and
    ``encoding`` rebuild a document's text from its text units when it has none stored;
    ``today`` (ISO date) is the period of a community without one."""
    plan = ExportPlan()
    ids = _Ids(src)
    plan.tables["documents"] = _documents(src, overlap, encoding, plan)
    plan.tables["text_units"] = _text_units(src, ids)
    plan.tables["entities"] = _entities(src, ids)
    plan.tables["relationships"] = _relationships(src, ids)
    plan.tables["communities"], plan.tables["community_reports"] = _communities(
        src, ids, today, plan)
    if src.claims:
        plan.tables["covariates"] = _covariates(src)
    if src.topic_communities:
        plan.notes.append(f"{src.topic_communities} topic communities not exported "
                          "(GraphRAG has no topics)")
    return plan
