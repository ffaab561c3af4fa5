"""Dynamic community selection, Microsoft GraphRAG's global search option (GraphRAG
``query/context_builder/dynamic_community_selection.py``): the rival ReTAG must beat at
cutting the cost of global search.

From the root communities (level 0) down: the LLM rates each community report's relevance to
the question (0-5, ``prompts/query/rate_relevance.txt``, stage ``rate``); a report rated at
least DYNAMIC_THRESHOLD is relevant and its sub-communities are rated next, and a relevant
child replaces its parent (GraphRAG's ``keep_parent=False``). When nothing is relevant after a
level, every report of the next level is rated, down to DYNAMIC_MAX_LEVEL. Only the relevant
reports go to map-reduce. With DYNAMIC_USE_SUMMARY a report is rated by its summary
(GraphRAG's ``use_summary``), by its full text where it has none.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from ..config import Group, Settings, env
from ..db import Graph
from ..errors import LLMError
from ..llm import LLM
from ..model import GENERAL, Answer, Query, ReportRow, Selection, Trace, timed
from ..prompts import render
from ..stages import Stage
from ..tokens import truncate
from .answer import MAP_REDUCE as MAP_REDUCE_ANSWER
from .answer import ONE_CALL, QUOTE, Context, respond
from .common import AnswerFailedError, reports_at_level
from .contract import Method, report_lines
from .ratings import read_rating
from .retrieval import levels, note_stale


class DynamicSettings(Group):
    """Dynamic community selection (`--method global --dynamic`)."""

    threshold: float = env(
        "DYNAMIC_THRESHOLD", 1, "the 0-5 rating that makes a report relevant: its "
        "sub-communities are rated next (GraphRAG's default)")
    use_summary: bool = env(
        "DYNAMIC_USE_SUMMARY", False, "rate each report by its summary paragraph instead of "
        "its full text (GraphRAG's `use_summary`): a few times fewer prompt tokens per rating "
        "call; a report without a summary is rated by its full text, with a trace note")
    max_level: int = env(
        "DYNAMIC_MAX_LEVEL", 2, "when no report is rated relevant, every report of the next "
        "level is rated, down to this level (GraphRAG's `max_level`)")


# a report's 0-5 relevance as the model wrote it: words, fractions and percentages read onto
# the scale (`ratings.read_rating`), anything else invalid; ``outside``: the number as written
# when it lay outside 0-5 (clamped, noted in the trace). No docstring: it would be sent in the
# JSON schema of every rating call
class Rating(BaseModel):
    # 0 irrelevant .. 5 answers it (none given: invalid, not a silent 0); the bounds told to
    # the endpoint (a grammar enforces them), not checked by pydantic: read_rating does
    rating: float = Field(json_schema_extra={"minimum": 0, "maximum": 5})
    reason: str = ""
    outside: SkipJsonSchema[float | None] = Field(None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _read(cls, data: Any) -> Any:
        if isinstance(data, dict) and "rating" in data:
            read = read_rating(data["rating"], 0, 5)
            data = {**data, "rating": read.value, "outside": read.outside}
        return data


def rated_text(settings: Settings, report: ReportRow) -> str:
    """What the rating call reads of ``report``: its summary with DYNAMIC_USE_SUMMARY (when
    it has one), else its full text."""
    if settings.method(DynamicSettings).use_summary and report.summary.strip():
        return report.summary
    return report.full_content


async def rate(llm: LLM, settings: Settings, question: str, report: ReportRow,
               trace: Trace, errors: list[str] | None = None) -> float | None:
    """The report's 0-5 relevance rating, or None (noted in the trace, its error added to
    ``errors``) when the LLM fails (a rating that reads as none included). A rating outside
    0-5 is clamped and noted."""
    msgs = render("query/rate_relevance", question=question,
                  report=truncate(rated_text(settings, report),
                                  settings.query.map_context_tokens, settings.encoding))
    try:
        got = await llm.structured(msgs, Rating, stage=Stage.RATE, max_tokens=80)
    except LLMError as err:
        trace.note(f"rating of report {report.id} failed ({err}): not selected")
        if errors is not None:
            errors.append(str(err))
        return None
    if got.outside is not None:
        trace.note(f"report {report.id} was rated {got.outside:g}, outside 0-5: taken as "
                   f"{got.rating:g}")
    return got.rating


async def select_reports(graph: Graph, llm: LLM, settings: Settings, question: str,
                         trace: Trace, scope: str = GENERAL) -> tuple[list[ReportRow],
                                                                      dict[int, float]]:
    """The relevant reports (rating >= DYNAMIC_THRESHOLD, children replacing parents) and the
    rating of every report rated. Sets ``trace.selection`` (`model.Selection`: the rating
    calls only). Raises LevelError when level 0 has no reports.

    Each distinct report text is rated once: a community the hierarchy did not split further
    (its report reused one level down, or an imported index's carried copy) takes the rating
    of the report it repeats without a call (``Selection.reused``), stays out of the selection
    (the report it repeats stands for it) and passes the walk on to its children. GraphRAG's
    own hierarchy has no such copies, so this is its walk at its cost."""
    before = llm.usage.stage(Stage.RATE).model_copy()
    own = settings.method(DynamicSettings)
    threshold = own.threshold
    queue = reports_at_level(graph, scope, 0)
    have = levels(graph, scope)
    ratings: dict[int, float] = {}
    relevant: dict[int, ReportRow] = {}
    parent: dict[int, int] = {}  # a rated report -> the report it descends from
    memo: dict[str, float] = {}  # rated text -> its rating
    seen: dict[int, ReportRow] = {}  # every report the walk reached, by id
    repeats: dict[int, int] = {}  # a report that repeats its parent's -> that parent
    failures, level, unsummarised, reused = 0, 0, 0, 0
    errors: list[str] = []  # the failed rating calls' errors: the first is said
    with timed(trace.seconds, "rate"):
        while queue:
            if own.use_summary:
                unsummarised += sum(not r.summary.strip() for r in queue)
            seen.update((r.id, r) for r in queue)
            texts = {r.id: rated_text(settings, r) for r in queue}
            todo = list({texts[r.id]: r for r in queue if texts[r.id] not in memo}.values())
            got = await asyncio.gather(*(rate(llm, settings, question, r, trace, errors)
                                         for r in todo))
            called = {r.id for r in todo}
            memo.update((texts[r.id], g) for r, g in zip(todo, got, strict=True)
                        if g is not None)
            hits = []
            for r in queue:
                g = memo.get(texts[r.id])
                if g is None:
                    failures += 1
                    continue
                ratings[r.id] = g
                reused += r.id not in called
                if g < threshold:
                    continue
                hits.append(r.id)
                up = parent.get(r.id)
                if up is not None and seen[up].full_content == r.full_content:
                    repeats[r.id] = up  # the same report one level down: `up` stands for it
                    continue
                relevant[r.id] = r
                relevant.pop(-1 if up is None else up, None)  # the child replaces its parent
            rows = graph.run("query/community_children", ids=hits, scope=scope) if hits else []
            parent.update({c["id"]: repeats.get(c["parent"], c["parent"]) for c in rows})
            queue = [ReportRow.from_record(c) for c in rows]
            level += 1
            if (not queue and not relevant and level in have
                    and level <= own.max_level):
                trace.note(f"no report rated relevant: rating every report of level {level}")
                queue = reports_at_level(graph, scope, level)
    if unsummarised:
        msg = (f"{unsummarised} rated reports have no summary: rated by their full text "
               "(DYNAMIC_USE_SUMMARY)")
        trace.note(msg)
    trace.selection = Selection(
        threshold=threshold, rated=len(ratings), relevant=len(relevant), failures=failures,
        failure=errors[0] if errors else None, reused=reused,
        cost=llm.usage.stage(Stage.RATE) - before)
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
        # the first failure's error: the endpoint's status and reason, a reply's fault
        msg = f"{failed} of {n} rating calls failed" + (
            "" if failed == n else " and no other report was rated relevant") + (
            f" ({sel.failure})" if sel.failure else "")
        trace.note(msg)
        raise AnswerFailedError(f"{msg}: no answer (retry, or check the LLM with "
                                "`neo4j-retag doctor`)", "rate_failed")
    if not reports:
        trace.note("no community report was rated relevant to the question")
    trace.level = max((r.level or 0 for r in reports), default=0)
    answer = await respond(graph, llm, settings, query, Context(reports=reports, cover=True),
                           trace, DYNAMIC_ANSWERS)
    for c in answer.trace.context:
        c.rating = ratings.get(c.id)  # type: ignore[call-overload]
    return answer


def selection_lines(answer: Answer) -> list[str]:
    """Dynamic selection's part of the trace as `ask` prints it."""
    sel = answer.trace.selection
    if sel is None:
        return report_lines(answer)
    reused = f" ({sel.reused} repeating one already rated)" if sel.reused else ""
    return [*report_lines(answer),
            f"dynamic selection: rated {sel.rated} reports{reused}, {sel.relevant} relevant "
            f"(threshold {sel.threshold}) | rating calls {sel.cost.calls} (+{sel.cost.cached} "
            f"cached), prompt tokens {sel.cost.prompt_tokens}"]


DYNAMIC_ANSWERS = (MAP_REDUCE_ANSWER, ONE_CALL, QUOTE)
GLOBAL_DYNAMIC = Method(
    "global-dynamic", ask_global_dynamic, "global search over the reports the LLM rates "
    "relevant from the root down (GraphRAG's dynamic selection; DYNAMIC_THRESHOLD)",
    settings=DynamicSettings, trace_part="selection", render=selection_lines,
    needs_reports=True, flag="dynamic", flag_of="global", rank=2, answers=DYNAMIC_ANSWERS,
    # the root down to DYNAMIC_MAX_LEVEL: what the selection may rate
    report_levels=lambda s, have: [lv for lv in have
                                   if lv <= s.method(DynamicSettings).max_level])
