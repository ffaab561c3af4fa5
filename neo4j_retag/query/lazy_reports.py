"""Reports on demand on a lazy index: a community whose report a query needs (global, retag,
global-dynamic) gets it built then, from its concepts and the text units that hold most of
them, in GraphRAG's report shape (``prompts/index/community_report.txt``), stored in the graph
marked ``lazy`` and reused by every later query: the lazy index gets cheaper with use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..checks.grounding import FindingCheck
from ..community_report import CommunityReport, ReportCounts, report_props
from ..config import Settings
from ..db import Graph, Record
from ..errors import Failure, LLMError, error_text
from ..llm import LLM
from ..model import Trace
from ..prompts import csv_table, render
from ..stages import Stage
from ..tokens import count, truncate

MAX_CONCEPTS, MAX_UNITS = 40, 12  # read per community; the context budget cuts further


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


async def ensure_reports(graph: Graph, llm: LLM, settings: Settings,
                         levels: list[int]) -> ReportCounts:
    """Build the missing reports of ``levels`` (lazy index only): ``ok`` the reports built and
    stored, ``failures`` those that failed (item ``report <id>``), recorded in the graph
    (``report_status: 'failed'``, ``report_error``) and retried by the next query that needs
    them."""
    pending = graph.run("query/lazy_pending_reports", levels=levels,
                        max_concepts=MAX_CONCEPTS, max_units=MAX_UNITS)
    done = ReportCounts()

    async def one(row: Record) -> Record:
        text = context(row, settings)
        msgs = render("index/community_report", context=text)
        try:
            report = await llm.structured(msgs, CommunityReport, stage=Stage.LAZY_REPORT,
                                          max_tokens=settings.index.report_max_tokens)
        except LLMError as err:
            done.failures.append(Failure.of(f"report {row['id']}", err))
            return {"id": row["id"], "props": {"report_status": "failed",
                                               "report_error": error_text(err)}}
        done.ok += 1
        # a finding its context does not hold is the model's invention: not stored
        report, unsupported = report.without_chatter()[0].grounded(FindingCheck(text))
        done.unsupported_findings += len(unsupported)
        return {"id": row["id"], "props": {**report_props(report),
                                           "unsupported_findings": unsupported}}

    if pending:
        graph.write("query/set_lazy_reports",
                    await asyncio.gather(*(one(r) for r in pending)))
    return done


def needed_levels(graph: Graph, settings: Settings, level: int | None,
                  pick: Callable[[Settings, list[int]], list[int]] | None) -> list[int]:
    """The levels whose reports a method reads: those ``pick`` (its ``report_levels``)
    chooses of the levels there are, else the query level (clamped to the deepest)."""
    have = sorted({r["level"] for r in graph.run("query/scope_levels", scope="general")})
    if not have:
        return []
    if pick is not None:
        return pick(settings, have)
    wanted = settings.query.level if level is None else level
    return [min(wanted, max(have))]


def note_built(trace: Trace, built: ReportCounts, levels: list[int]) -> None:
    """Say in ``trace`` what :func:`ensure_reports` did: a note when it built any, each
    report that failed a failure (the answer read the level without it)."""
    if built.ok or built.failures:
        trace.note(f"lazy index: {built.ok} community reports built on demand at level(s) "
                   f"{levels} and stored ({built.failed} failed)")
    trace.failures[:0] = built.failures
