"""Planning a GraphRAG import: read GraphRAG rows -> the rows our import statements take (pure).

The mapping is described in :mod:`neo4j_retag.graphrag_tables`; the writing is
:func:`neo4j_retag.graphrag_import.import_graphrag`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ... import tokens
from ...errors import InputError
from ...model import GENERAL, clean, entity_key, report_markdown
from .tables import DOC_KEYS, ORIGIN, Output, Row
from .values import (
    as_date,
    as_findings,
    as_float,
    as_int,
    as_list,
    as_metadata,
    as_str,
    set_props,
)


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
        plan.entities.append({"key": key, "props": set_props(
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


def _membership(out: Output, plan: Plan, by_id: dict[str, str],
                by_title: dict[str, str]) -> tuple[dict[int, list[str]], dict[int, int]]:
    """community -> member keys, and (before 1.0) community -> parent from create_final_nodes."""
    members: dict[int, list[str]] = defaultdict(list)
    if out.has_column("communities", "entity_ids"):
        unknown = 0
        for c in out.tables["communities"]:
            cid = as_int(c.get("community"))
            for eid in as_list(c.get("entity_ids")):
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
        raise InputError("communities.parquet has no entity_ids column and there is no "
                         "create_final_nodes.parquet to take community membership from")
    at: dict[tuple[str, int], int] = {}
    for n in nodes:
        cid, level = as_int(n.get("community")), as_int(n.get("level"))
        key = by_title.get(as_str(n.get("title")) or "")
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
             if (c := as_int(row.get("community"))) is not None}
    reports = {c: row for row in out.tables["community_reports"]
               if (c := as_int(row.get("community"))) is not None}
    members, node_parents = _membership(out, plan, by_id, by_title)
    has_gid = out.has_column("communities", "community")  # before 1.0 `id` is the number
    rows: dict[int, Row] = {}
    for cid in sorted(set(comms) | set(reports)):
        c, r = comms.get(cid, {}), reports.get(cid, {})
        level = as_int(c.get("level"))
        level = as_int(r.get("level")) if level is None else level
        if level is None:
            plan.warnings.append(f"community {cid} has no level: skipped")
            continue
        parent = next((p for p in (as_int(c.get("parent")), as_int(r.get("parent")),
                                   node_parents.get(cid)) if p is not None), None)
        keys = members.get(cid, [])
        props = set_props(
            scope=GENERAL, level=level, carried=False, origin=ORIGIN,
            parent=parent if parent is not None and parent >= 0 else None,
            size=as_int(c.get("size")) or as_int(r.get("size")) or len(keys),
            graphrag_id=as_str(c.get("id")) if has_gid else None,
            human_readable_id=as_int(c.get("human_readable_id")),
            community_title=as_str(c.get("title")),
            period=as_str(c.get("period")) or as_str(r.get("period")),
            title=as_str(r.get("title")) or as_str(c.get("title")) or f"Community {cid}")
        if r:
            props.update(_report_props(r, props["title"]))
        rows[cid] = {"id": cid, "members": keys, "props": props,
                     "children": [x for x in (as_int(v) for v in
                                              as_list(c.get("children") or r.get("children")))
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


def _report_props(r: Row, title: str) -> Row:
    findings = as_findings(r.get("findings"))
    rank = as_float(r.get("rank"))
    summary = as_str(r.get("summary")) or ""
    explanation = as_str(r.get("rating_explanation")) or ""
    content = as_str(r.get("full_content")) or report_markdown(
        title, summary, rank, explanation, findings)
    fcj = r.get("full_content_json")
    ok = bool(content.strip())
    return set_props(
        summary=summary, full_content=content, rating=rank, rank=rank,
        rating_explanation=explanation, findings=json.dumps(findings),
        full_content_json=fcj if fcj is None or isinstance(fcj, str) else json.dumps(fcj),
        graphrag_report_id=as_str(r.get("id")), report_status="ok" if ok else "failed",
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
