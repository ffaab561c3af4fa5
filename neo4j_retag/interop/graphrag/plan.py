"""Planning a GraphRAG import: read GraphRAG rows -> the rows our import statements take (pure).

The mapping is described in :mod:`.tables`; communities and reports are planned (and their
hierarchy repaired) in :mod:`.hierarchy`; the writing is :func:`.importer.import_graphrag`.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field

from ... import tokens
from ...keys import entity_key
from ...text import clean
from .hierarchy import plan_communities
from .repair import Repair
from .tables import DOC_KEYS, ORIGIN, Output, Row
from .values import as_date, as_float, as_int, as_list, as_metadata, as_str, set_props


@dataclass
class Plan:
    documents: list[Row] = field(default_factory=list)
    chunks: list[Row] = field(default_factory=list)
    next: list[Row] = field(default_factory=list)
    entities: list[Row] = field(default_factory=list)
    mentions: list[Row] = field(default_factory=list)
    relationships: list[Row] = field(default_factory=list)
    claims: list[Row] = field(default_factory=list)
    communities: list[Row] = field(default_factory=list)
    parents: list[Row] = field(default_factory=list)
    has_degree: bool = True
    warnings: list[str] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)  # to GraphRAG's community hierarchy

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
        gid = as_str(d.get("id")) or f"graphrag-document-{i}"
        text = as_str(d.get("text"))
        ours = hashlib.sha256(clean(text).strip().encode()).hexdigest() if text else gid
        ids[gid] = ours
        if ours in seen:
            plan.warnings.append(f"document {gid} has the same text as another: merged")
            continue
        seen.add(ours)
        title = as_str(d.get("title")) or gid
        created_text, created = as_date(d.get("creation_date"))
        meta = as_metadata(d.get("metadata"))
        flat = {k: v for k, v in meta.items()
                if isinstance(v, str | int | float | bool) and k not in DOC_KEYS}
        plan.documents.append({"id": ours, "created_at": created, "metadata": flat,
                               "props": set_props(
            title=title, path=title, sha256=ours if text else None, text=text, origin=ORIGIN,
            graphrag_id=gid, human_readable_id=as_int(d.get("human_readable_id")),
            creation_date=created_text,
            graphrag_metadata=json.dumps(meta, sort_keys=True, default=str) if meta else None)})
    return ids


def _plan_chunks(out: Output, plan: Plan, doc_ids: dict[str, str], encoding: str) -> set[str]:
    """Text units as chunks, in document order, with NEXT links; returns the chunk ids."""
    order: dict[str | None, dict[str, int]] = {}
    for d in out.tables.get("documents", []):
        gid = as_str(d.get("id"))
        if gid:
            order[doc_ids[gid]] = {c: i for i, c in enumerate(as_list(d.get("text_unit_ids")))}
    by_doc: dict[str | None, list[Row]] = defaultdict(list)
    unknown = 0
    for u in out.tables.get("text_units", []):
        docs = [doc_ids.get(str(x)) for x in as_list(u.get("document_ids"))]
        unknown += docs.count(None)
        docs = list(dict.fromkeys(x for x in docs if x))
        text = as_str(u.get("text")) or ""
        n_tokens = as_int(u.get("n_tokens"))
        row = {"id": str(u["id"]), "document_ids": docs, "props": set_props(
            text=text, n_tokens=n_tokens if n_tokens is not None else tokens.count(text, encoding),
            document_id=docs[0] if docs else None, graphrag_id=str(u["id"]),
            human_readable_id=as_int(u.get("human_readable_id")))}
        by_doc[docs[0] if docs else None].append(row)
    if unknown:
        plan.warnings.append(f"{unknown} text_units.document_ids name no document: not linked")
    for doc, rows in by_doc.items():
        pos = order.get(doc, {})
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
    node_degree: dict[str, int | None] = {}
    if not degree_col:  # before 2.0 the degree sat in create_final_nodes
        node_degree = {str(n["title"]): as_int(n.get("degree"))
                       for n in out.tables.get("nodes", []) if n.get("degree") is not None}
    plan.has_degree = degree_col or bool(node_degree)
    for e in out.tables["entities"]:
        title = as_str(e.get("title")) or ""
        key = entity_key(title)
        if not key:
            skipped += 1
            continue
        gid = as_str(e.get("id"))
        if gid:
            by_id[gid] = key
        by_title[title] = key
        units = [str(x) for x in as_list(e.get("text_unit_ids"))]
        if key in links:
            dup += 1
            links[key] = list(dict.fromkeys(links[key] + units))
            continue
        links[key] = units
        types[key] = as_str(e.get("type")) or "unknown"
        degree = as_int(e.get("degree")) if degree_col else node_degree.get(title)
        plan.entities.append({"key": key, "props": set_props(
            name=title, type=types[key], description=as_str(e.get("description")) or "",
            degree=degree, frequency=as_int(e.get("frequency")), graphrag_id=gid,
            human_readable_id=as_int(e.get("human_readable_id")), origin=ORIGIN)})
    if dup:
        plan.warnings.append(f"{dup} entities share a normalised name with another: merged")
    if skipped:
        plan.warnings.append(f"{skipped} entities without a usable title: skipped")
    for u in out.tables.get("text_units", []):  # the reverse links, for completeness
        for eid in as_list(u.get("entity_ids")):
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
    pairs: dict[tuple[str, str], Row] = {}
    placeholders: dict[str, str] = {}
    known = set(by_title.values())
    merged = skipped = 0
    for r in out.tables["relationships"]:
        ends = []
        for col in ("source", "target"):
            title = as_str(r.get(col)) or ""
            key = by_title.get(title) or entity_key(title)
            if key and key not in known and key not in placeholders:
                placeholders[key] = title
            ends.append(key)
        s, t = ends
        if not s or not t or s == t:
            skipped += 1
            continue
        a, b = sorted((s, t))
        chunk_ids = [str(x) for x in dict.fromkeys(as_list(r.get("text_unit_ids")))]
        weight = as_float(r.get("weight"))
        weight = float(len(chunk_ids) or 1) if weight is None else weight
        description = as_str(r.get("description")) or ""
        if (a, b) in pairs:
            merged += 1
            p = pairs[(a, b)]["props"]
            chunk_ids = list(dict.fromkeys(p["chunk_ids"] + chunk_ids))
            weight += p["weight"]
            description = "\n".join(x for x in (p["description"], description) if x)
            gid, hid, rev = p.get("graphrag_id"), p.get("human_readable_id"), p["graphrag_reversed"]
        else:
            gid, hid, rev = as_str(r.get("id")), as_int(r.get("human_readable_id")), s > t
        n = len(chunk_ids)
        strength = weight / n if n else weight
        pairs[(a, b)] = {"source_key": a, "target_key": b, "props": set_props(
            description=description, weight=weight, strength=strength, chunk_ids=chunk_ids,
            descriptions=[description] * n, strengths=[strength] * n, graphrag_id=gid,
            human_readable_id=hid, graphrag_reversed=rev)}
    plan.relationships = list(pairs.values())
    for key, title in placeholders.items():
        plan.entities.append({"key": key, "endpoint_only": True, "props": set_props(
            name=title, type="unknown", description="", origin=ORIGIN)})
    if placeholders:
        plan.warnings.append(f"{len(placeholders)} relationship endpoints are not in entities: "
                             "created with type 'unknown', in no community (GraphRAG clustered "
                             "and reported only the entities table)")
    if merged:
        plan.warnings.append(f"{merged} relationships repeat an entity pair (either direction): "
                             "merged, weights summed")
    if skipped:
        plan.warnings.append(f"{skipped} relationships without two distinct endpoints: skipped")


def _plan_claims(out: Output, plan: Plan, by_title: dict[str, str]) -> None:
    for i, c in enumerate(out.tables.get("covariates", [])):
        subject = as_str(c.get("subject_id")) or ""
        gid = as_str(c.get("id"))
        chunk_id = as_str(c.get("text_unit_id"))
        plan.claims.append({
            "id": gid or hashlib.sha256(f"graphrag-claim|{i}|{subject}".encode()).hexdigest()[:32],
            "subject_key": by_title.get(subject) or entity_key(subject), "chunk_id": chunk_id,
            "props": set_props(
                subject=subject, object=as_str(c.get("object_id")), type=as_str(c.get("type")),
                status=as_str(c.get("status")), start_date=as_str(c.get("start_date")),
                end_date=as_str(c.get("end_date")), description=as_str(c.get("description")),
                source_quote=as_str(c.get("source_text")), chunk_id=chunk_id,
                covariate_type=as_str(c.get("covariate_type")), graphrag_id=gid,
                human_readable_id=as_int(c.get("human_readable_id")), origin=ORIGIN)})


def plan_import(out: Output, encoding: str = "cl100k_base") -> Plan:
    """The rows each import statement takes, from a read GraphRAG output (no database).

    Problems left as they are go to ``plan.warnings``; every change made to GraphRAG's
    community hierarchy (:mod:`.repair`) to ``plan.repairs``. Raises InputError when community
    membership cannot be read at all.
    """
    plan = Plan()
    doc_ids = _plan_documents(out, plan)
    chunk_ids = _plan_chunks(out, plan, doc_ids, encoding)
    by_id, by_title = _plan_entities(out, plan, chunk_ids)
    _plan_relationships(out, plan, by_title)
    _plan_claims(out, plan, by_title)
    comms = plan_communities(out, by_id, by_title, plan.entities, plan.relationships,
                             plan.claims)
    plan.communities, plan.parents = comms.communities, comms.parents
    plan.repairs, plan.warnings = comms.repairs, plan.warnings + comms.warnings
    return plan
