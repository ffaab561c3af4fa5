"""Global search: map-reduce over community reports (Edge et al. 2024 §3.1.6).

Map: the reports, shuffled with a fixed seed, packed into batches within a token budget; each
batch gives key points with a 0-100 helpfulness score (score-0 points dropped). Reduce: the
points, best first, fill one context, and the LLM writes the final answer citing the reports
(reduced level by level first when they exceed the endpoint's window: ``reduce_fit``).
The answer's citations are only the ones its text makes; the reports behind the map points it
was reduced from are its ``sources``, kept apart.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, Field, create_model, field_validator

from ... import events
from ...checks.degenerate import check as check_answer
from ...checks.instructed import instructed
from ...checks.shape import misshaped
from ...citations import check
from ...config import Settings
from ...errors import Failure, LLMError, LLMParseError
from ...llm import LLM, Subject
from ...llm.reply import CONTENT_FILTER, blocked_line
from ...model import Answer, Citation, ContextReport, ReportRow, Trace, timed
from ...prompts import render
from ...refusal import Refusal
from ...stages import Stage
from ...text import strip_chatter
from ..citations import cite_or_attribute, report_ids
from ..common import no_answer_for, note_once
from ..ratings import rated
from .map_batches import (
    CONTEXT_LENGTH,
    check_fits,
    map_all,
    map_completion,
    report_table,
    split_refused,
)
from .reduce_fit import reduce_fitting
from .sentence_check import check_sentences


class MapFailedError(LLMError):
    """Every map batch failed (unparseable after retries, or the call failed): there is no
    answer, and the canned no-answer sentence would pretend the data has none."""


class MapPoint(BaseModel):
    description: str
    score: Annotated[float, rated(0, 100)] = 0  # the 0-100 helpfulness score ("high": 80)
    reports: list[int] = []

    @field_validator("reports", mode="before")
    @classmethod
    def _reports(cls, v: Any) -> list[int]:
        items = v if isinstance(v, list) else re.findall(r"\d+", str(v or ""))
        out = []
        for x in items:
            try:
                out.append(int(x))
            except (TypeError, ValueError):
                continue
        return out


class MapResult(BaseModel):
    # minItems in the schema only: a grammar-constrained small model otherwise takes the
    # cheapest path, "[]"; GraphRAG's map always answers, with score 0 for "I don't know"
    points: list[MapPoint] = Field([], json_schema_extra={"minItems": 1})


MIN_POINTS = 3  # points a map batch must give (fewer when it holds fewer reports)


def min_points(batch_size: int) -> int:
    """The schema's lower bound on a batch's points: ``min(3, batch_size)``. Grammar-constrained
    decoding stops at the bound the schema allows (every batch gave exactly one point
    under ``minItems: 1``); score-0 points keep "I don't know" possible."""
    return max(1, min(MIN_POINTS, batch_size))


@functools.lru_cache(maxsize=256)
def map_model(ids: tuple[int, ...]) -> type[MapResult]:
    """MapResult whose schema lets ``reports`` name only the ids of this batch (at least one)
    and asks for :func:`min_points` points: under grammar-constrained decoding every point
    then cites real reports. Parsing stays lenient (fewer points are accepted); ids outside
    the batch are dropped afterwards."""
    point = create_model("MapPoint", __base__=MapPoint, reports=(list[int], Field(
        [], json_schema_extra={"items": {"type": "integer", "enum": list(ids)},
                               "minItems": 1})))
    return create_model("MapResult", __base__=MapResult, points=(list[point], Field(  # type: ignore[valid-type]
        [], json_schema_extra={"minItems": min_points(len(ids))})))


async def _map(llm: LLM, settings: Settings, question: str, batch: list[ReportRow],
               trace: Trace) -> list[MapPoint]:
    """One map call: the batch's key points, each citing only ids of this batch."""
    ids = tuple(sorted(r.id for r in batch))
    msgs = render("query/map", context=report_table(batch),
                  question=question, min_points=min_points(len(ids)))
    in_batch = set(ids)
    subject = Subject(question, "\n".join(f"{r.title}\n{r.full_content}" for r in batch))

    def accept(result: MapResult) -> str | None:
        # a batch whose every point answers nothing is asked again (with a repetition
        # penalty), then fails; single degenerate points are dropped below
        # score-0 points are "I don't know": dropped anyway, never judged
        scored = [p for p in result.points if p.score > 0]
        whys = [check_answer(p.description, subject) for p in scored]
        if whys and all(whys):
            trace.refusals.extend(Refusal.of(Stage.MAP, v.rule, v.why, v.numbers, p.description)
                                  for p, v in zip(scored, whys, strict=True) if v)
            return f"every map point is degenerate (first: {whys[0]})"
        return None

    try:
        result = await llm.structured(msgs, map_model(ids), stage=Stage.MAP, accept=accept,
                                      max_tokens=map_completion(llm, settings, question))
    except LLMParseError as err:
        trace.map_parse_failures += 1
        trace.failures.append(Failure.of(f"map batch of reports {list(ids)}", err))
        if err.reason == "degenerate":
            note_once(trace, f"a map batch gave only degenerate points: {err}")
        return []
    except LLMError as err:
        if err.reason == CONTEXT_LENGTH:
            raise  # over the endpoint's window: the caller splits the batch
        trace.map_failures += 1
        trace.failures.append(Failure.of(f"map batch of reports {list(ids)}", err))
        return []
    points: dict[str, MapPoint] = {}
    for p in result.points:
        cited = p.reports or report_ids(p.description)
        # only ids that were in this batch count; a point citing none stays unattributed
        p.reports = [i for i in dict.fromkeys(cited) if i in in_batch]
        p.description, changed = strip_chatter(p.description)
        trace.chatter_stripped += changed
        # a document's template or instruction followed: dropped whatever LLM_ANSWER_CHECK says
        v = misshaped(p.description, subject) or instructed(p.description, subject) or (
            check_answer(p.description, subject) if settings.llm.answer_check else None)
        if p.score > 0 and v:
            trace.points_degenerate += 1
            trace.refusals.append(Refusal.of(Stage.MAP, v.rule, v.why, v.numbers, p.description))
            continue
        # a model made to give several points may repeat one: the best-scored copy stays
        key = " ".join(p.description.casefold().split())
        p.description = with_marker(p.description, p.reports)
        if key and (key not in points or p.score > points[key].score):
            points[key] = p
    return list(points.values())


def with_marker(description: str, reports: list[int]) -> str:
    """A map point's text holding exactly its checked ``reports`` as GraphRAG's data reference
    (``[Data: Reports (2, 7)]``, at most 5 ids): other ids in its markers removed, the marker
    appended when the model named the ids in the ``reports`` field only. The reduce step
    preserves references it is shown (GraphRAG's map texts carry them); a small model filled
    the field and wrote no marker, so its answer had none to keep and cited nothing."""
    checked = check(description, {"Reports": set(reports)})
    text = checked.text.strip()
    if reports and not checked.ids("Reports") and text:
        text += f" [Data: Reports ({', '.join(str(i) for i in reports[:5])})]"
    return text


async def map_fitting(llm: LLM, settings: Settings, question: str, batch: list[ReportRow],
                      trace: Trace, depth: int = 0) -> list[MapPoint]:
    """:func:`_map`, by ``map_batches.split_refused``: a batch over the endpoint's window
    is split (a lone report cut), one that cannot fit a listed failure."""
    async def again(part: list[ReportRow], d: int) -> list[MapPoint]:
        return await map_fitting(llm, settings, question, part, trace, d)
    try:
        return await _map(llm, settings, question, batch, trace)
    except LLMError as err:
        if err.reason != CONTEXT_LENGTH:
            raise
        return await split_refused(llm, settings, question, batch, trace, err, again, depth)


async def map_reduce(llm: LLM, settings: Settings, question: str, reports: list[ReportRow],
                     trace: Trace, response_type: str = "multiple paragraphs", *,
                     citable: Sequence[ReportRow] = ()) -> Answer:
    """Answer ``question`` from ``reports`` (Edge et al. 2024 §3.1.6); ``citable``: reports
    that are not mapped but that the answer may still cite (a refined draft's own sources).

    Parse failures are counted in ``trace`` (distinct from score-0 points); an answer that
    cannot be given says why in ``trace.notes``. Raises MapFailedError ("N of N map batches
    gave no usable points") when every map batch failed: the honest no-answer stays for reports
    that simply score 0.
    """
    return (await map_reduce_many(llm, settings, question, reports, trace,
                                  [(question, response_type)], citable=citable))[0]


async def map_reduce_many(llm: LLM, settings: Settings, map_question: str,
                          reports: list[ReportRow], trace: Trace,
                          reduces: Sequence[tuple[str, str]], *,
                          citable: Sequence[ReportRow] = ()) -> list[Answer]:
    """:func:`map_reduce` with one map pass (``map_question``) and one reduce per
    ``(question, response_type)`` of ``reduces``, each answer with its own copy of the
    trace: questions over the same reports pay the map - the reports' tokens - once (topic
    mining)."""
    by_id = {r.id: r for r in (*citable, *reports)}
    trace.reports_retrieved = len(reports)
    trace.context = [ContextReport(id=r.id, level=r.level, title=r.title, score=r.score,
                                   composed=r.composed)
                     for r in reports]
    events.emit("retrieved", reports=len(reports), method=trace.method, level=trace.level)
    if not reports:
        text = no_answer_for(settings, trace, "no community reports to answer from")
        return [Answer(answer=text, trace=t) for t in _traces(trace, reduces)]
    # a window that cannot hold the map prompt at all: one line, no call
    check_fits(llm, Stage.MAP, render("query/map", context="", question=map_question, min_points=3))
    with timed(trace.seconds, "map"):
        done = 0

        async def mapped(batch: list[ReportRow]) -> list[MapPoint]:
            nonlocal done
            points = await map_fitting(llm, settings, map_question, batch, trace)
            done += 1
            events.emit("map", batch=done, batches=trace.map_batches, points=len(points))
            return points

        # batched by the window (a small one read or learnt first: map_batches.map_all)
        point_lists = await map_all(llm, settings, map_question, reports, trace, mapped)
    points = [p for pl in point_lists for p in pl]
    trace.points_total = len(points)
    kept = sorted((p for p in points if p.score > 0), key=lambda p: -p.score)
    trace.points_zero = len(points) - len(kept)
    trace.points_kept = len(kept)
    if not kept:
        if trace.map_parse_failures + trace.map_failures >= len(point_lists):
            n = trace.map_parse_failures + trace.map_failures
            what = ("gave no usable points (unparseable or degenerate)"
                    if trace.map_parse_failures == n
                    else "failed (unparseable or the LLM call failed)")
            # blocked by a content filter: said with what it flagged, not as a parse failure
            if blocked := [f for f in trace.failures if f.reason == CONTENT_FILTER]:
                what = (f"failed, {len(blocked)} of them "
                        + blocked_line(blocked[0].error).removeprefix("the answer was "))
            # over the window: the setting that fixes it, not a retry
            over = next((f.error for f in trace.failures if f.reason == CONTEXT_LENGTH), None)
            tail = over or ("not retried: the same request meets the same filter" if blocked
                            else "retry, or check the LLM with `neo4j-retag doctor`")
            raise MapFailedError(f"{n} of {n} map batches {what}: no answer ({tail})",
                                 CONTEXT_LENGTH if over else
                                 CONTENT_FILTER if blocked else "llm_error")
        why = ("no map point scored above 0: the reports do not answer this"
               if not trace.points_degenerate else
               f"no usable map point: {trace.points_degenerate} were degenerate (repeated, "
               "echoing the question or about nothing in the reports), the rest scored 0")
        text = no_answer_for(settings, trace, why)
        return [Answer(answer=text, trace=t) for t in _traces(trace, reduces)]
    return [await _reduce(llm, settings, q, rt, kept, by_id, t, citable)
            for (q, rt), t in zip(reduces, _traces(trace, reduces), strict=True)]


def _traces(trace: Trace, reduces: Sequence[object]) -> list[Trace]:
    """``trace`` itself for one answer (the caller reads it), else a copy per answer."""
    return [trace] if len(reduces) == 1 else [trace.model_copy(deep=True) for _ in reduces]


async def _reduce(llm: LLM, settings: Settings, question: str, response_type: str,
                  kept: list[MapPoint], by_id: dict[int, ReportRow], trace: Trace,
                  citable: Sequence[ReportRow]) -> Answer:
    """The reduce step over the map's ``kept`` points, its sentences held to the reports
    behind them (``sentence_check``), and the answer's citations."""
    def subject(points: list[MapPoint]) -> Subject:
        # the points, and the reports they rest on: a faithful answer uses their words
        support = dict.fromkeys(i for p in points for i in p.reports)
        return Subject(question, "\n".join(
            [p.description for p in points]
            + [f"{by_id[i].title}\n{by_id[i].full_content}" for i in support]))

    with timed(trace.seconds, "reduce"):
        # budgeted like map: within REDUCE_CONTEXT_TOKENS and the endpoint's window
        text, used_points = await reduce_fitting(llm, question, response_type, kept, trace,
                                                 subject)
    support = dict.fromkeys(i for p in used_points for i in p.reports)
    if not text:
        text = "\n\n".join(p.description for p in used_points)
        trace.note("the reduce step gave no text: the best map points are shown")
    elif trace.no_answer is None:
        text = check_sentences(text, question, [by_id[i] for i in support], settings, trace)

    # citations: only what the answer text cites, and only reports behind the points the
    # reduce step was given (or ``citable``): a retrieved report no point rests on was never
    # shown to it, so such an id is copied from the prompt's example or made up. Sources: the
    # reports behind those points, never added to the text
    def citation(i: int, cited: bool = True) -> Citation:
        return Citation(kind="report", id=i, title=by_id[i].title, level=by_id[i].level,
                        cited_in_answer=cited)

    valid = {f"Reports:{i}": citation(i) for i in {*support, *(r.id for r in citable)}
             if i in by_id}
    text, citations = cite_or_attribute(
        text, valid, [(p.description, p.reports) for p in used_points], trace,
        by="the reports of the map point")
    cited = [c.id for c in citations]
    if not cited:  # "listed apart" only when there is something to list
        trace.note("the answer cites no report: its sources are listed apart" if support else
                   "the answer cites no report, and no map point named one of its reports")

    for c in trace.context:
        c.cited = c.id in cited
    return Answer(answer=text, citations=citations,
                  sources=[citation(i, i in cited) for i in support], trace=trace)
