"""Reports on demand on a lazy index: a community whose report a query needs (global, retag,
global-dynamic) gets it built then, from its concepts and the text units that hold most of
them, in GraphRAG's report shape (``prompts/index/community_report.txt``), stored in the graph
marked ``lazy`` and reused by every later query: the lazy index gets cheaper with use.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from pydantic import BaseModel, field_validator

from ..config import Settings
from ..db import Graph, Record
from ..errors import LLMError
from ..llm import LLM
from ..model import Trace, clamped, report_markdown
from ..prompts import csv_table, render
from ..text import strip_chatter
from ..tokens import count, truncate

MAX_CONCEPTS, MAX_UNITS = 40, 12  # read per community; the context budget cuts further


class Finding(BaseModel):
    summary: str = ""
    explanation: str = ""


class LazyReport(BaseModel):
    """GraphRAG's community report shape (the same JSON the index's report prompt returns)."""

    title: str
    summary: str = ""
    rating: Annotated[float, clamped(0, 10, 0.0)] = 0.0
    rating_explanation: str = ""
    findings: list[Finding] = []

    @field_validator("findings", mode="before")
    @classmethod
    def _findings(cls, v: Any) -> Any:
        if not isinstance(v, list):
            return []
        return [{"summary": f} if isinstance(f, str) else f for f in v]

    def props(self) -> Record:
        title, summary = strip_chatter(self.title)[0], strip_chatter(self.summary)[0]
        findings = [f.model_dump() for f in self.findings]
        return {"title": title, "summary": summary, "rating": self.rating, "rank": self.rating,
                "rating_explanation": self.rating_explanation,
                "findings": json.dumps(findings), "report_status": "ok", "report_error": None,
                "full_content": report_markdown(title, summary, self.rating,
                                                self.rating_explanation, findings)}


def context(row: Record, settings: Settings) -> str:
    """Concepts, then text units, until the report context budget is full."""
    enc, budget = settings.encoding, settings.index.report_context_tokens
    concepts = csv_table("Concepts", ["concept", "text_units"],
                         [[c["name"], c["units"]] for c in row["concepts"]])
    parts, used = [concepts], count(concepts, enc)
    rows: list[list[Any]] = []
    for i, u in enumerate(row["units"]):
        line = [i, u["title"] or "", truncate(u["text"], budget // 3, enc)]
        n = count(",".join(map(str, line)), enc) + 2
        if rows and used + n > budget:
            break
        rows.append(line)
        used += n
    parts.append(csv_table("Sources", ["id", "title", "text"], rows))
    return "\n".join(parts)


def is_lazy(graph: Graph) -> bool:
    return graph.run("query/lazy_index")[0]["lazy"]


async def ensure_reports(graph: Graph, llm: LLM, settings: Settings, levels: list[int],
                         trace_notes: list[str]) -> dict[str, int]:
    """Build the missing reports of ``levels`` (lazy index only); returns ``{"built",
    "failed"}``. A failed report is recorded (``report_status: 'failed'``) and retried by the
    next query that needs it; the others are stored."""
    pending = graph.run("query/lazy_pending_reports", levels=levels,
                        max_concepts=MAX_CONCEPTS, max_units=MAX_UNITS)
    done = {"built": 0, "failed": 0}

    async def one(row: Record) -> Record:
        msgs = render("index/community_report",
                      context=context(row, settings))
        try:
            report = await llm.structured(msgs, LazyReport, stage="lazy_report",
                                          max_tokens=settings.index.report_max_tokens)
        except LLMError as err:
            done["failed"] += 1
            return {"id": row["id"], "props": {"report_status": "failed",
                                               "report_error": f"{err.reason}: {err}"[:2000]}}
        done["built"] += 1
        return {"id": row["id"], "props": report.props()}

    if pending:
        graph.write("query/set_lazy_reports",
                    await asyncio.gather(*(one(r) for r in pending)))
        trace_notes.append(f"lazy index: {done['built']} community reports built on demand at "
                           f"level(s) {levels} and stored ({done['failed']} failed)")
    return done


def needed_levels(graph: Graph, settings: Settings, method: str, level: int | None) -> list[int]:
    """The levels whose reports ``method`` reads: the query level (clamped to the deepest
    level there is) for global and retag, the root down to DYNAMIC_MAX_LEVEL for dynamic."""
    have = sorted({r["level"] for r in graph.run("query/scope_levels", scope="general")})
    if not have:
        return []
    if method == "global-dynamic":
        return [lv for lv in have if lv <= settings.query.dynamic_max_level]
    wanted = settings.query.level if level is None else level
    return [min(wanted, max(have))]


def note_all(trace: Trace, notes: list[str]) -> None:
    for n in notes:
        trace.note(n)
