"""Community reports, bottom-up (Edge et al. 2024 §3.1.5 and appendix "hierarchical community
summarization").

Leaf context: entity, relationship and claim records, relationships ranked by the combined
degree of their endpoints, added until the token budget is full. A community whose raw context
overflows substitutes its sub-communities' reports, biggest first, until it fits.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, field_validator

from .config import Settings
from .db import Graph
from .llm import LLM, LLMError
from .prompts import render
from .tokens import count, truncate


class Finding(BaseModel):
    summary: str = ""
    explanation: str = ""


class CommunityReport(BaseModel):
    """The JSON a report prompt returns (GraphRAG's community report shape)."""

    title: str
    summary: str = ""
    rating: float = 0.0
    rating_explanation: str = ""
    findings: list[Finding] = []

    @field_validator("rating", mode="before")
    @classmethod
    def _rating(cls, v: Any) -> float:
        try:
            return min(10.0, max(0.0, float(v)))
        except (TypeError, ValueError):
            return 0.0

    @field_validator("findings", mode="before")
    @classmethod
    def _findings(cls, v: Any) -> Any:
        if not isinstance(v, list):
            return []
        return [{"summary": f} if isinstance(f, str) else f for f in v]

    def markdown(self) -> str:
        parts = [f"# {self.title}", self.summary,
                 f"Rating: {self.rating:g} - {self.rating_explanation}".rstrip(" -")]
        for f in self.findings:
            parts += [f"## {f.summary}", f.explanation]
        return "\n\n".join(p for p in parts if p.strip())


def _table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return f"-----{title}-----\n{buf.getvalue()}"


def local_context(elements: dict[str, Any], max_tokens: int, enc: str) -> tuple[str, bool]:
    """Records ranked by combined degree until ``max_tokens``; returns (context, overflowed)."""
    entities = {e["key"]: e for e in elements["entities"]}
    claims_by: dict[str, list[dict[str, Any]]] = {}
    for c in elements["claims"]:
        claims_by.setdefault(c["key"], []).append(c)
    rels = sorted(elements["relationships"],
                  key=lambda r: (-(r["combined_degree"] or 0), r["source_key"], r["target_key"]))
    ent_rows: list[list[Any]] = []
    rel_rows: list[list[Any]] = []
    claim_rows: list[list[Any]] = []
    seen: set[str] = set()

    def add_entity(key: str) -> None:
        if key in seen or key not in entities:
            return
        seen.add(key)
        e = entities[key]
        ent_rows.append([len(ent_rows), e["name"], e["description"] or "", e["degree"] or 0])
        for c in claims_by.get(key, []):
            claim_rows.append([len(claim_rows), c["entity"], c["type"], c["status"],
                               c["description"]])

    def render_ctx() -> str:
        parts = [_table("Entities", ["id", "entity", "description", "degree"], ent_rows)]
        if claim_rows:
            parts.append(_table("Claims", ["id", "entity", "type", "status", "description"],
                                claim_rows))
        if rel_rows:
            parts.append(_table("Relationships",
                                ["id", "source", "target", "description", "combined_degree"],
                                rel_rows))
        return "\n".join(parts)

    ctx = render_ctx()
    # edges first (by combined degree), then the entities that have none, by degree
    steps: list[tuple[str, Any]] = [("rel", r) for r in rels]
    steps += [("ent", e["key"]) for e in sorted(entities.values(),
                                                key=lambda e: (-(e["degree"] or 0), e["key"]))]
    for kind, item in steps:
        snapshot = (list(ent_rows), list(rel_rows), list(claim_rows), set(seen))
        if kind == "rel":
            add_entity(item["source_key"])
            add_entity(item["target_key"])
            rel_rows.append([len(rel_rows), item["source"], item["target"],
                             item["description"] or "", item["combined_degree"] or 0])
        else:
            add_entity(item)
        new = render_ctx()
        if count(new, enc) > max_tokens:
            ent_rows, rel_rows, claim_rows, seen = snapshot
            return render_ctx(), True
        ctx = new
    return ctx, False


def mixed_context(elements: dict[str, Any], children: list[dict[str, Any]],
                  max_tokens: int, enc: str) -> str:
    """Substitute sub-community reports (biggest first) for their raw records until it fits."""
    ctx, overflow = local_context(elements, max_tokens, enc)
    reported = [c for c in children if c.get("full_content")]
    if not overflow or not reported:
        return ctx
    for i in range(1, len(reported) + 1):
        used = reported[:i]
        report_rows = [[c["id"], c["title"] or "", c["full_content"]] for c in used]
        reports = _table("Reports", ["id", "title", "content"], report_rows)
        covered = {k for c in used for k in c["members"]}
        rest = {
            "entities": [e for e in elements["entities"] if e["key"] not in covered],
            "relationships": [r for r in elements["relationships"]
                              if r["source_key"] not in covered and r["target_key"] not in covered],
            "claims": [c for c in elements["claims"] if c["key"] not in covered],
        }
        budget = max_tokens - count(reports, enc)
        if budget <= 0:
            return truncate(reports, max_tokens, enc)
        local, overflow = local_context(rest, budget, enc)
        if not overflow:
            return reports + "\n" + local
    return truncate(reports, max_tokens, enc)


async def _report(llm: LLM, settings: Settings, context: str) -> CommunityReport:
    msgs = render(settings.prompts_dir, "community_report", context=context)
    try:
        return await llm.structured(msgs, CommunityReport, stage="report",
                                    max_tokens=settings.report_max_tokens)
    except LLMError:
        # one retry, asking again plainly for JSON (the failed answer was not cached)
        msgs = msgs + [{"role": "user", "content": "Answer with the JSON object only."}]
        return await llm.structured(msgs, CommunityReport, stage="report",
                                    max_tokens=settings.report_max_tokens)


def report_props(report: CommunityReport) -> dict[str, Any]:
    return {"title": report.title, "summary": report.summary, "rating": report.rating,
            "rank": report.rating, "rating_explanation": report.rating_explanation,
            "findings": json.dumps([f.model_dump() for f in report.findings]),
            "full_content": report.markdown(), "report_status": "ok", "report_error": None}


async def build_reports(graph: Graph, llm: LLM, settings: Settings, scope: str,
                        progress: Callable[[int], None] = lambda n: None) -> dict[str, int]:
    """Reports for every community of ``scope`` still without one, deepest level first.

    A report that fails after one retry is recorded (``report_status: 'failed'``) and never
    stops the others. Returns counts ``{"ok": n, "failed": n, "copied": n}``.
    """
    pending = graph.run("pending_reports", scope=scope)
    done = {"ok": 0, "failed": 0, "copied": 0}
    levels = sorted({r["level"] for r in pending}, reverse=True)
    enc, budget = settings.encoding, settings.report_context_tokens

    async def one(cid: int) -> dict[str, Any]:
        children = graph.run("community_children", id=cid)
        if len(children) == 1 and children[0]["carried"] and children[0]["status"] == "ok":
            # a carried copy has the same members: the same report, no LLM call
            child = graph.run("community_report", id=children[0]["id"])[0]
            done["copied"] += 1
            progress(1)
            return {"id": cid, "props": {k: v for k, v in child.items() if k != "id"}}
        elements = graph.run("community_elements", id=cid)[0]
        context = mixed_context(elements, children, budget, enc)
        try:
            report = await _report(llm, settings, context)
            props = report_props(report)
            done["ok"] += 1
        except LLMError as err:
            props = {"report_status": "failed", "report_error": str(err)[:2000]}
            done["failed"] += 1
        progress(1)
        return {"id": cid, "props": props}

    for level in levels:
        ids = [r["id"] for r in pending if r["level"] == level]
        rows = await asyncio.gather(*(one(i) for i in ids))
        graph.write("set_reports", rows)
    return done
