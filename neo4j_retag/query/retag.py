"""ReTAG retrieval augmentation (Kim et al. 2025 §3.2.2-3.4): topic classification, keyword
expansion, retrieval of the top-p community reports (BM25, vector or both fused: RETRIEVAL),
then map-reduce over only those."""

from __future__ import annotations

from typing import Literal

from pydantic import create_model

from .. import events
from ..config import Settings
from ..db import Graph, Record
from ..errors import InputError, LLMError
from ..llm import LLM
from ..model import GENERAL, Answer, Query, Trace, timed
from ..prompts import render
from .map_reduce import map_reduce
from .retrieval import (
    check_level,
    expand_keywords,
    note_stale,
    plan_retrieval,
    query_level,
    retrieve_reports,
)


async def classify_topic(llm: LLM, settings: Settings, question: str,
                         topics: list[Record], corpus_description: str,
                         trace: Trace) -> str | None:
    """The topic name the question is about, or None (ReTAG §3.2.2). A failed classification
    is None with a trace note: the general graph answers."""
    if not topics:
        return None
    names = tuple(t["name"] for t in topics)
    model = create_model("TopicChoice", topic=(Literal[names] | None, None))  # type: ignore[valid-type]
    listing = "\n".join(f"- {t['name']}: {t['description'] or ''}" for t in topics)
    msgs = render("query/classify_topic", topics=listing,
                  question=question, corpus_description=corpus_description or "(none)")
    try:
        choice = await llm.structured(msgs, model, stage="classify", max_tokens=60)
    except LLMError as err:
        trace.note(f"topic classification failed ({err}): general graph")
        return None
    if choice.topic is None:  # type: ignore[attr-defined]
        trace.note("the question matches no topic: general graph")
    return choice.topic  # type: ignore[attr-defined]


async def ask_retag(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """ReTAG: classify -> expand keywords -> top-p retrieval -> map-reduce. ``query.topic`` forces
    a topic.

    Raises LevelError when the level has no reports, InputError for an unknown topic.
    """
    level, topic, question = query_level(graph, settings, query.level), query.topic, query.question
    top_p = query.top_p or settings.query.top_p
    trace = Trace(method="retag", level=level)
    # before any call: vectors of another model are refused, never compared
    how = plan_retrieval(graph, settings, query.retrieval or settings.query.retrieval, trace)
    with timed(trace.seconds, "classify"):
        topics = graph.run("query/topics")
        corpus = topics[0]["corpus_description"] if topics else (
            graph.run("query/corpus")[0]["description"] or "")
        if topic is not None and topic not in {t["name"] for t in topics}:
            raise InputError(f"unknown topic {topic!r}; topics: {[t['name'] for t in topics]}")
        if topic is None:
            topic = await classify_topic(llm, settings, question, topics, corpus, trace)
            if not topics:
                lazy = graph.run("query/lazy_index")[0]["lazy"]  # topics are never built there
                trace.note("a lazy index has no topics: general graph" if lazy else
                           "no topics stored (run `neo4j-retag topics build`): general graph")
        trace.topic = topic
        scope = next((t["label"] for t in topics if t["name"] == topic), GENERAL)
        trace.scope = scope
        events.emit("topic", topic=topic, scope=scope)

        # before keyword expansion: a graph with no reports fails with no call paid for it
        trace.level = check_level(graph, scope, level)

    with timed(trace.seconds, "keywords"):
        trace.keywords = await expand_keywords(llm, settings, question, corpus, trace)
        events.emit("keywords", keywords=trace.keywords)

    with timed(trace.seconds, "retrieve"):
        note_stale(graph, scope, trace)
        if trace.level != level:
            trace.note(f"topic {topic!r} has no level {level}: used level {trace.level}")
        reports = await retrieve_reports(graph, llm, settings, scope, trace.level, question,
                                         trace.keywords, top_p, trace, how)
        if not reports and scope != GENERAL:
            trace.note("nothing retrieved in the topic graph: fell back to the general graph")
            trace.scope = scope = GENERAL
            trace.level = check_level(graph, scope, level)
            reports = await retrieve_reports(graph, llm, settings, scope, trace.level,
                                             question, trace.keywords, top_p, trace, how)
    trace.retrieval = how.mode  # what was used (bm25 when the embedding failed under auto)
    if not reports:
        trace.note(f"{trace.retrieval} retrieval found no report for the question and "
                   "keywords")
    return await map_reduce(llm, settings, question, reports, trace, query.response_type)
