"""DRIFT search (Dynamic Reasoning and Inference with Flexible Traversal; Microsoft GraphRAG's
``query/structured_search/drift_search``): global search's breadth primes local search's
depth. Our own implementation over Neo4j; its steps are in ``query/drift_steps.py``.

1. Primer: one LLM call writes a hypothetical answer (HyDE, shaped like a report); its
   embedding finds the ``DRIFT_K_FOLLOWUPS`` nearest community reports at the level (the
   question's own embedding when that call fails; BM25 without embeddings, with a note). The
   reports are split into ``DRIFT_PRIMER_FOLDS`` folds, one call each: an intermediate answer
   citing its reports, a 0-100 score and follow-up questions.
2. Follow-ups: for up to ``DRIFT_N_DEPTH`` rounds, the ``DRIFT_K_FOLLOWUPS`` unanswered
   questions ranked first (by the score of the answer that asked them; GraphRAG shuffles) are
   embedded in one call and answered by local search (``query/local_context.py``), each with
   its score and further follow-ups (a question asked before is not asked again).
3. Reduce: the intermediate answers, best score first, as many as fit REDUCE_CONTEXT_TOKENS,
   merged into the answer by one call.

Citations are report ids and text units, checked at every step against what that step was
shown. A failed primer fold or follow-up fails that item (`errors.Failure` in
``trace.failures``), never the run; when the primer gives nothing the question itself is
searched locally. Nothing found is the honest no-answer with a note; every step failing is an
error, not a no-answer. ``trace.drift`` (`model.DriftSearch`) has the steps and the LLM cost
of each phase (primer, local, reduce).
"""

from __future__ import annotations

import asyncio
import logging

from .. import events
from ..config import Group, Settings, env
from ..db import Graph
from ..llm import LLM, Subject, Usage
from ..model import (
    GENERAL,
    Answer,
    Citation,
    ContextReport,
    DriftSearch,
    DriftStep,
    LLMCost,
    Query,
    ReportRow,
    Trace,
    timed,
)
from ..prompts import render
from ..stages import Stage
from .citations import cited_sources
from .common import AnswerFailedError, complete_or_note, no_answer_for, note_once
from .contract import Method, report_lines
from .drift_steps import (
    folds,
    follow_up,
    hypothetical_answer,
    primer_fold,
    reduce_context,
)
from .embedding import check_vectors, embed_question, stored_vectors
from .local_context import SourceIds
from .retrieval import check_level, note_stale, query_level, retrieve
from .vectors import nearest_reports


class DriftSettings(Group):
    """DRIFT search (`--method drift`; GraphRAG's defaults: lower them for a small model)."""

    n_depth: int = env("DRIFT_N_DEPTH", 3, "rounds of follow-up questions", ge=1)
    k_followups: int = env("DRIFT_K_FOLLOWUPS", 20, "reports the primer reads; follow-ups "
                           "answered per round", ge=1)
    primer_folds: int = env("DRIFT_PRIMER_FOLDS", 5, "primer calls (the primer's reports "
                            "split between them)", ge=1)


class Meter:
    """The LLM cost spent since the last reading (all stages of ``usage``)."""

    def __init__(self, usage: Usage) -> None:
        self.usage = usage
        self.last = usage.total

    def take(self) -> LLMCost:
        now = self.usage.total
        spent, self.last = now - self.last, now
        return spent


def _key(query: str) -> str:
    return " ".join(query.casefold().split()).rstrip("?. ")


async def primer_reports(graph: Graph, llm: LLM, settings: Settings, question: str,
                         level: int, trace: Trace, drift: DriftSearch) -> list[ReportRow]:
    """The reports the primer reads: nearest to the hypothetical answer's embedding (or the
    question's when it failed), else BM25 with a note when the reports have no embeddings."""
    k = settings.method(DriftSettings).k_followups
    if stored_vectors(graph, settings, "reports") is not None:
        template = graph.run("query/drift_template", level=level)
        hyde = (await hypothetical_answer(llm, settings, question,
                                          template[0]["full_content"], trace)
                if template else "")
        got = await embed_question(graph, llm, settings, [hyde or question], trace,
                                   "reports")
        if got:
            drift.primer_by = "hyde" if hyde else "question"
            return nearest_reports(graph, got[0], level, k)
    else:
        note_once(trace, "no embeddings of the community reports (EMBEDDINGS=false, or an "
                  "index built without them): the primer's reports are found by BM25",
                  logging.WARNING)
    drift.primer_by = "bm25"
    return retrieve(graph, GENERAL, level, question, [], k)


async def ask_drift(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """DRIFT search at ``query.level`` (module doc). Raises LevelError when the graph has no
    reports there, AnswerFailedError when every step of the search failed."""
    level = check_level(graph, GENERAL, query_level(graph, settings, query.level))
    trace = Trace(method="drift", level=level)
    note_stale(graph, GENERAL, trace)
    check_vectors(graph, settings)  # another model's vectors: refused before any call
    q = settings.method(DriftSettings)
    drift = trace.drift = DriftSearch(n_depth=q.n_depth, k_followups=q.k_followups,
                                      primer_folds=q.primer_folds)
    meter, ids, question = Meter(llm.usage), SourceIds(), query.question
    with timed(trace.seconds, "primer"):
        reports = await primer_reports(graph, llm, settings, question, level, trace, drift)
        drift.primer_reports = trace.reports_retrieved = len(reports)
        trace.context = [ContextReport(id=r.id, level=r.level, title=r.title, score=r.score,
                                       composed=r.composed) for r in reports]
        events.emit("retrieved", reports=len(reports), method="drift", level=level)
        steps = list(await asyncio.gather(*(
            primer_fold(llm, settings, question, f, i, trace, q.k_followups)
            for i, f in enumerate(folds(reports, q.primer_folds), 1))))
    drift.phases["primer"] = meter.take()
    pending = [DriftStep(query=f, depth=1, parent=i)
               for i, a in enumerate(steps) for f in a.follow_ups]
    if not any(a.answer for a in steps):
        trace.note("the primer gave no intermediate answer" + (
            "" if reports else " (no report found)") + ": the question itself is searched "
            "locally")
        pending = [DriftStep(query=question, depth=1)]
    with timed(trace.seconds, "local"):
        pending = await _follow_ups(graph, llm, settings, question, level, ids, steps,
                                    pending, trace)
    drift.followups_left = len(pending)
    drift.phases["local"] = meter.take()
    with timed(trace.seconds, "reduce"):
        answer = await _reduce(llm, settings, query, steps, ids, trace)
    drift.phases["reduce"] = meter.take()
    drift.steps = steps
    return answer


async def _follow_ups(graph: Graph, llm: LLM, settings: Settings, question: str, level: int,
                      ids: SourceIds, steps: list[DriftStep], pending: list[DriftStep],
                      trace: Trace) -> list[DriftStep]:
    """Rounds of follow-ups answered by local search (appended to ``steps``); the
    questions left unanswered."""
    q = settings.method(DriftSettings)
    seen: set[str] = set()
    pending = [a for a in pending if not (_key(a.query) in seen or seen.add(_key(a.query)))]
    seen.add(_key(question))  # never asked again as a follow-up
    n = 0
    for depth in range(1, q.n_depth + 1):
        if not pending:
            break
        # by the score of the answer that asked them; stable: ties keep the order asked
        pending.sort(key=lambda a: -(steps[a.parent].score or 0) if a.parent is not None else 0)
        batch, pending = pending[:q.k_followups], pending[q.k_followups:]
        vectors = await embed_question(graph, llm, settings, [a.query for a in batch], trace)
        done = await asyncio.gather(*(
            follow_up(graph, llm, settings, question, a, level, ids,
                      vectors[i] if vectors else None, trace, n + i + 1, q.k_followups,
                      embed=False)
            for i, a in enumerate(batch)))
        n += len(batch)
        for a in done:
            a.depth = depth
            steps.append(a)
            for f in a.follow_ups:
                if _key(f) not in seen:
                    seen.add(_key(f))
                    pending.append(DriftStep(query=f, depth=depth + 1, parent=len(steps) - 1))
        events.emit("drift", depth=depth, answered=len(batch), pending=len(pending))
    return pending


async def _reduce(llm: LLM, settings: Settings, query: Query, steps: list[DriftStep],
                  ids: SourceIds, trace: Trace) -> Answer:
    """The ranked reduce: the best intermediate answers merged into one, citing only what
    they cite; their citations are the answer's sources."""
    context, used = reduce_context(settings, steps)
    for a in used:
        a.in_reduce = True
    if not used:
        tried = [a for a in steps if a.failed or a.score is not None]
        if tried and all(a.failed for a in tried):
            msg = f"{len(tried)} of {len(tried)} DRIFT steps failed"
            trace.note(msg)
            raise AnswerFailedError(f"{msg}: no answer (retry, or check the LLM with "
                                    "`neo4j-retag doctor`)", "drift_failed")
        return Answer(answer=no_answer_for(settings, trace, "no step of the search found "
                                           "anything to answer from"), trace=trace)
    events.emit("reduce", points=len(used))
    msgs = render("query/drift_reduce", context=context, question=query.question,
                  response_type=query.response_type)
    text = await complete_or_note(llm, msgs, Stage.DRIFT_REDUCE, trace, subject=Subject(
        query.question, "\n".join(a.answer for a in used)))
    if not text:
        text = "\n\n".join(a.answer for a in used)
        trace.note("the reduce step gave no text: the best intermediate answers are shown")
    support: dict[str, Citation] = {}
    for a in used:
        for c in a.cited:
            support.setdefault(f"Reports:{c.id}" if c.kind == "report"
                               else f"Sources:{ids.of(str(c.id))}", c)
    text, cited = cited_sources(text, support, trace)
    if not cited:
        trace.note("the answer cites nothing: its sources are listed apart" if support else
                   "the answer cites nothing, and no intermediate answer cited its data")
    # every source read is listed, cited or not: the primer's reports and the text units of
    # every follow-up's local context, beside what the intermediate answers cited
    read = dict(support)
    for r in trace.context:
        read.setdefault(f"Reports:{r.id}", Citation(kind="report", id=r.id, title=r.title,
                                                    level=r.level))
    for unit in ids.ids:
        read.setdefault(f"Sources:{ids.of(unit)}", Citation(kind="text_unit", id=unit))
    sources = [c.model_copy(update={"cited_in_answer": c in cited}) for c in read.values()]
    for r in trace.context:
        r.cited = any(c.kind == "report" and c.id == r.id for c in cited)
    return Answer(answer=text, citations=cited, sources=sources, trace=trace)


def drift_lines(answer: Answer) -> list[str]:
    """DRIFT's part of the trace as `ask` prints it, after the report side's counts."""
    d = answer.trace.drift
    if d is None:
        return report_lines(answer)
    cost = " | ".join(f"{k} {v.calls} calls (+{v.cached} cached), {v.prompt_tokens} prompt "
                      "tokens" for k, v in d.phases.items())
    return [*report_lines(answer),
            f"drift: primer by {d.primer_by} over {d.primer_reports} reports, {len(d.steps)} "
            f"steps ({sum(s.failed for s in d.steps)} failed), {d.followups_left} follow-ups "
            f"left | {cost}"]


DRIFT = Method(
    "drift", ask_drift, "DRIFT search: a primer over the reports nearest a hypothetical "
    "answer, follow-up questions answered by local search, a ranked reduce",
    settings=DriftSettings, trace_part="drift", render=drift_lines, needs_reports=True, rank=4)
