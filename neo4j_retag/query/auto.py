"""`--method auto`: one classification call decides how to answer (GraphRAG has "no facility
to decide which query method is best", microsoft/graphrag #480, #662).

A global question (themes, trends, how the corpus's stories connect) goes to `retag`, or to
GraphRAG's `global` when no topics are stored and ReTAG is set to read them (RETAG_TOPICS=true;
with RETAG_TOPICS=false ReTAG reads the general graph's reports: `retag`); a specific one about
named things goes to `local`. With a small model (LLM_CLASS) they go to `retag-quoted` and
`local-quoted`: the sources' sentences quoted, nothing written. The decision reads the
question, the corpus description and the topics; the trace's ``routing`` says what was chosen
and why. The chosen method is called through the registry handed to :func:`auto_method`
(``query.METHODS``), so this module imports no other method.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Literal

from pydantic import BaseModel, Field

from .. import events
from ..config import Settings
from ..db import Graph, Record
from ..errors import Failure, LLMError
from ..llm import LLM
from ..model import Answer, Query, Routing, Trace, timed
from ..prompts import render
from ..stages import Stage
from .embedding import check_vectors

GLOBAL, SPECIFIC = "global", "specific"
Ask = Callable[[Graph, LLM, Settings, Query], Awaitable[Answer]]


class Route(BaseModel):
    kind: Literal["global", "specific"]
    reason: str = Field("", json_schema_extra={"maxLength": 160})


async def route(llm: LLM, settings: Settings, question: str, topics: list[Record],
                corpus_description: str, trace: Trace) -> tuple[str, str]:
    """``(kind, reason)``: ``global`` or ``specific``. A failed classification is ``global``
    (what this system is for) with a trace note."""
    listing = "\n".join(f"- {t['name']}: {t['description'] or ''}" for t in topics) or "(none)"
    msgs = render("query/route_question", question=question,
                  topics=listing, corpus_description=corpus_description or "(none)")
    try:
        choice = await llm.structured(msgs, Route, stage=Stage.ROUTE, max_tokens=80)
    except LLMError as err:
        trace.note(f"auto: the classification failed ({err}): answered as a global question")
        trace.failures.append(Failure.of("route", err))
        return GLOBAL, "classification failed"
    return choice.kind, " ".join(choice.reason.split())[:160]


def method_for(kind: str, has_topics: bool, settings: Settings) -> str:
    """The method a kind of question goes to. A small model's (LLM_CLASS): ``local-quoted``
    for a specific one, ``retag-quoted`` for a global one - the sources quoted, nothing
    written. A capable model's: ``local``; ``retag`` when topics are stored or ReTAG is set to
    read the general graph's reports (RETAG_TOPICS=false), else GraphRAG's ``global``."""
    if settings.llm.small:
        return "local-quoted" if kind == SPECIFIC else "retag-quoted"
    if kind == SPECIFIC:
        return "local"
    return "retag" if has_topics or not settings.query.retag_topics else "global"


def auto_method(methods: Mapping[str, Ask]) -> Ask:
    """``--method auto`` answering by the methods of ``methods`` (looked up when asked)."""

    async def ask_auto(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
        """Classify the question, then answer it by the method chosen. A specific question
        whose names match no entity is answered globally instead (a trace note says so)."""
        trace = Trace(method="auto")
        # local and retag compare vectors: another model's are refused before the route call
        check_vectors(graph, settings)
        with timed(trace.seconds, "route"):
            topics = graph.run("query/topics")
            corpus = topics[0]["corpus_description"] if topics else (
                graph.run("query/corpus")[0]["description"] or "")
            kind, reason = await route(llm, settings, query.question, topics, corpus, trace)
        method = method_for(kind, bool(topics), settings)
        events.emit("classified", kind=kind, method=method, reason=reason)
        answer = await methods[method](graph, llm, settings, query)
        if method.startswith("local") and answer.trace.seeding is None:
            fallback = method_for(GLOBAL, bool(topics), settings)
            trace.note(f"auto: no entity matches the question: answered by {fallback} instead")
            events.emit("classified", kind=kind, method=fallback, reason="no entity matches")
            method, answer = fallback, await methods[fallback](graph, llm, settings, query)
        answer.trace.routing = Routing(kind=kind, method=method, reason=reason,
                                       topics=len(topics))
        answer.trace.notes[:0] = trace.notes + [f"auto: a {kind} question, answered by {method}"
                                                + (f" ({reason})" if reason else "")]
        answer.trace.failures[:0] = trace.failures
        answer.trace.seconds = {"route": trace.seconds["route"], **answer.trace.seconds}
        return answer

    return ask_auto
