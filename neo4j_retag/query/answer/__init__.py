"""The one seam from retrieved context to answer: every method that reads reports or text units
hands what it retrieved (:class:`Context`) to :func:`respond`, which answers by one of three
answerers - ``map-reduce`` (GraphRAG's, Edge et al. 2024 §3.1.6), ``one-call`` (one answer call
over the context) or ``quote`` (the sources' sentences, no answer call) - and returns the
:class:`~neo4j_retag.model.Answer` with its citations, sources and trace.

Which answerer: the question's ``answer`` option, else ``ANSWER``; ``auto`` is the method's
own, the first of what it offers (``Method.answers``). An answerer the method does not offer
is said in the trace and the method's own answers. The declared fallback: a quote with nothing
to quote (no sentence shares a word with the question, and the context is not one to cover)
is answered by the method's own written answerer, with a trace note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ... import events
from ...config import Settings
from ...db import Graph
from ...llm import LLM
from ...model import Answer, Citation, ContextReport, Query, ReportRow, Trace, timed
from ..citations import cited_sources
from ..common import no_answer_for
from . import quote
from .map_reduce import map_reduce
from .one_call import answer_from, answer_reports

QUOTE, ONE_CALL, MAP_REDUCE = "quote", "one-call", "map-reduce"
ANSWERERS = (QUOTE, ONE_CALL, MAP_REDUCE)


@dataclass
class Context:
    """What a method retrieved, for the answer: community ``reports`` (best first), text
    ``units`` (ids, best first) and ``entities`` ((key, name), best first) whose sentences may
    be quoted; ``text`` the written answer's context already laid out as tables (local
    search's, rag's) with the ids it may cite (``valid``); ``sources`` everything read;
    ``cover`` when a quote should cover the reports in turns (a question about the whole
    corpus, over reports)."""

    reports: list[ReportRow] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    entities: list[tuple[str, str]] = field(default_factory=list)
    text: str = ""
    valid: Mapping[str, Citation] = field(default_factory=dict)
    sources: list[Citation] = field(default_factory=list)
    cover: bool = False


def chosen(settings: Settings, query: Query, offered: Sequence[str], trace: Trace) -> str:
    """The answerer for this question (module docstring), recorded in ``trace.answer``."""
    want = query.answer or settings.query.answer
    how = offered[0] if want == "auto" else want
    if how not in offered:
        trace.note(f"{trace.method} cannot answer by {how} (it offers {', '.join(offered)}): "
                   f"answered by {offered[0]}")
        how = offered[0]
    trace.answer = how
    return how


async def respond(graph: Graph, llm: LLM, settings: Settings, query: Query, ctx: Context,
                  trace: Trace, offered: Sequence[str]) -> Answer:
    """The answer to ``query`` from ``ctx`` by the chosen answerer (:func:`chosen` among
    ``offered``, the method's own first). Raises what the answerer raises
    (MapFailedError, AnswerFailedError)."""
    how = chosen(settings, query, offered, trace)
    if how == QUOTE:
        quoted = quoted_answer(graph, settings, query, ctx, trace)
        if quoted is not None:
            return quoted
        written = next((a for a in offered if a != QUOTE), None)
        if written is None:
            return Answer(answer=no_answer_for(settings, trace, "no sentence of the sources "
                                               "read shares a word with the question"),
                          sources=ctx.sources, trace=trace)
        trace.note(f"nothing to quote: no sentence of the sources read shares a word with the "
                   f"question or its keywords; answered by {written} instead")
        trace.answer = how = written
    if how == MAP_REDUCE:
        return await map_reduce(llm, settings, query.question, ctx.reports, trace,
                                query.response_type)
    if ctx.text:
        text = await answer_from(llm, settings, query, ctx.text, trace)
        text, cited = cited_sources(text, ctx.valid, trace)
        ids = {(c.kind, c.id) for c in cited}
        return Answer(answer=text, citations=cited, trace=trace, sources=[
            s.model_copy(update={"cited_in_answer": (s.kind, s.id) in ids})
            for s in ctx.sources])
    return await answer_reports(llm, settings, query, ctx.reports, trace)


def quoted_answer(graph: Graph, settings: Settings, query: Query, ctx: Context,
                  trace: Trace) -> Answer | None:
    """The quoted answer (``quote``), or None when nothing can be quoted; the no-answer when
    nothing was retrieved."""
    if ctx.reports:
        trace.reports_retrieved = len(ctx.reports)
        trace.context = [ContextReport(id=r.id, level=r.level, title=r.title, score=r.score,
                                       composed=r.composed) for r in ctx.reports]
    if not (ctx.reports or ctx.units or ctx.entities):
        return Answer(answer=no_answer_for(settings, trace, "nothing retrieved to quote"),
                      trace=trace)
    with timed(trace.seconds, "answer"):
        cands = quote.candidates(graph, ctx.reports, ctx.units, ctx.entities)
        picked = quote.pick(query.question, trace.keywords, cands, settings.query.quote_words,
                            cover=ctx.cover)
    if not picked:
        return None
    events.emit("retrieved", reports=len(ctx.reports), text_units=len(ctx.units),
                method=trace.method, level=trace.level)
    trace.note(f"the answer quotes {len(picked)} of the {len(cands)} sentences of the sources "
               f"read (ANSWER=quote, QUOTE_WORDS={settings.query.quote_words}): no answer call")
    cited = quote.citations(picked)
    keys = {(c.kind, c.id) for c in cited}
    reports_quoted = {q.group for q in picked}
    for c in trace.context:
        c.cited = f"report {c.id}" in reports_quoted
    sources = [s.model_copy(update={"cited_in_answer": (s.kind, s.id) in keys})
               for s in ctx.sources] or [
        Citation(kind="report", id=r.id, title=r.title, level=r.level,
                 cited_in_answer=f"report {r.id}" in reports_quoted) for r in ctx.reports]
    return Answer(answer=quote.render(picked), citations=cited, sources=sources, trace=trace)
