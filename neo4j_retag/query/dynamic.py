"""Dynamic community selection, Microsoft GraphRAG's global search option (GraphRAG
``query/context_builder/dynamic_community_selection.py``): the rival ReTAG must beat at
cutting the cost of global search.

From the root communities (level 0) down: the LLM rates each community report's relevance to
the question (0-5, ``prompts/query/rate_relevance.txt``, stage ``rate``); a report rated at
least DYNAMIC_THRESHOLD is relevant and its sub-communities are rated next, and a relevant
child replaces its parent (GraphRAG's ``keep_parent=False``). When nothing is relevant after a
level, every report of the next level is rated, down to DYNAMIC_MAX_LEVEL. Only the relevant
reports go to map-reduce.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from pydantic import BaseModel

from ..config import Settings
from ..db import Graph
from ..errors import LLMError
from ..llm import LLM
from ..model import GENERAL, Answer, Query, ReportRow, Selection, Trace, clamped, timed
from ..prompts import render
from ..tokens import truncate
from .common import AnswerFailedError, reports_at_level
from .map_reduce import map_reduce
from .retrieval import levels, note_stale


class Rating(BaseModel):
    rating: Annotated[float, clamped(0, 5, 0.0)] = 0  # 0 irrelevant .. 5 answers it
    reason: str = ""


async def rate(llm: LLM, settings: Settings, question: str, report: ReportRow,
               trace: Trace) -> float | None:
    """The report's 0-5 relevance rating, or None (noted in the trace) when the LLM fails."""
    msgs = render("query/rate_relevance", question=question,
                  report=truncate(report.full_content, settings.query.map_context_tokens,
                                  settings.encoding))
    try:
        return (await llm.structured(msgs, Rating, stage="rate", max_tokens=80)).rating
    except LLMError as err:
        trace.note(f"rating of report {report.id} failed ({err}): not selected")
        return None


async def select_reports(graph: Graph, llm: LLM, settings: Settings, question: str,
                         trace: Trace, scope: str = GENERAL) -> tuple[list[ReportRow],
                                                                      dict[int, float]]:
    """The relevant reports (rating >= DYNAMIC_THRESHOLD, children replacing parents) and the
    rating of every report rated. Sets ``trace.selection`` (`model.Selection`: the rating
    calls only). Raises LevelError when level 0 has no reports."""
    before = llm.usage.stage("rate").model_copy()
    threshold = settings.query.dynamic_threshold
    queue = reports_at_level(graph, scope, 0)
    have = levels(graph, scope)
    ratings: dict[int, float] = {}
    relevant: dict[int, ReportRow] = {}
    parent: dict[int, int] = {}
    failures, level = 0, 0
    with timed(trace.seconds, "rate"):
        while queue:
            got = await asyncio.gather(*(rate(llm, settings, question, r, trace)
                                         for r in queue))
            hits = []
            for r, g in zip(queue, got, strict=True):
                if g is None:
                    failures += 1
                    continue
                ratings[r.id] = g
                if g >= threshold:
                    relevant[r.id] = r
                    hits.append(r.id)
                    relevant.pop(parent.get(r.id, -1), None)  # the child replaces its parent
            rows = graph.run("query/community_children", ids=hits, scope=scope) if hits else []
            parent.update({c["id"]: c["parent"] for c in rows})
            queue = [ReportRow.from_record(c) for c in rows]
            level += 1
            if (not queue and not relevant and level in have
                    and level <= settings.query.dynamic_max_level):
                trace.note(f"no report rated relevant: rating every report of level {level}")
                queue = reports_at_level(graph, scope, level)
    trace.selection = Selection(
        threshold=threshold, rated=len(ratings), relevant=len(relevant), failures=failures,
        cost=llm.usage.stage("rate") - before)
    return list(relevant.values()), ratings


async def ask_global_dynamic(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """The `global-dynamic` method (`ask --method global --dynamic`): dynamic community
    selection, then map-reduce over the selected reports (of any level; ``query.level`` is
    not used, as in GraphRAG). Raises LevelError when the graph has no reports."""
    trace = Trace(method="global-dynamic", level=0)
    reports, ratings = await select_reports(graph, llm, settings, query.question, trace)
    note_stale(graph, GENERAL, trace)
    sel = trace.selection
    failed = sel.failures if sel else 0
    if sel and failed and not reports:
        # a failed rating is no "not relevant": nothing selected says nothing about the data
        n = failed + sel.rated
        msg = f"{failed} of {n} rating calls failed" + (
            "" if failed == n else " and no other report was rated relevant")
        trace.note(msg)
        raise AnswerFailedError(f"{msg}: no answer (retry, or check the LLM with "
                                "`neo4j-retag doctor`)", "rate_failed")
    if not reports:
        trace.note("no community report was rated relevant to the question")
    trace.level = max((r.level or 0 for r in reports), default=0)
    answer = await map_reduce(llm, settings, query.question, reports, trace,
                              query.response_type)
    for c in answer.trace.context:
        c.rating = ratings.get(c.id)  # type: ignore[call-overload]
    return answer
