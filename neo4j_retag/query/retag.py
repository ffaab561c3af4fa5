"""ReTAG retrieval augmentation (Kim et al. 2025 §3.2.2-3.4): topic classification, keyword
expansion, retrieval of the top-p community reports (BM25, vector or both fused: RETRIEVAL),
then map-reduce over only those."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import create_model

from .. import events
from ..config import Settings
from ..db import Graph, Record
from ..errors import InputError, LLMError
from ..llm import LLM
from ..model import GENERAL, Answer, Query, ReportRow, Trace, timed
from ..prompts import render
from ..stages import Stage
from ..tokens import truncate
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
        choice = await llm.structured(msgs, model, stage=Stage.CLASSIFY, max_tokens=60)
    except LLMError as err:
        trace.note(f"topic classification failed ({err}): general graph")
        return None
    if choice.topic is None:  # type: ignore[attr-defined]
        trace.note("the question matches no topic: general graph")
    return choice.topic  # type: ignore[attr-defined]


def offered_topics(settings: Settings, topics: list[Record], trace: Trace) -> list[Record]:
    """The topics the classifier is offered: none with RETAG_TOPICS=false (the general graph,
    the paper's retrieval-only arm), and never one whose subgraph holds more than
    RETAG_TOPIC_MAX_SHARE of the entities (it narrows nothing but the pool); each left out
    is a trace note."""
    if topics and not settings.query.retag_topics:
        trace.note("RETAG_TOPICS=false: the general graph's reports, no topic classification")
        return []
    cap = settings.query.retag_topic_max_share
    big = [t for t in topics if (t.get("share") or 0) > cap]
    for t in big:
        trace.note(f"topic {t['name']!r} holds {t['share']:.0%} of the entities, over "
                   f"RETAG_TOPIC_MAX_SHARE={cap:g}: not a topic, not offered")
    return [t for t in topics if t not in big]


MIN_SHARE_P = 8  # TOP_P_SHARE never retrieves fewer reports than this (or all when fewer)


def share_p(graph: Graph, settings: Settings, scope: str, level: int, top_p: int) -> int:
    """p for one scope and level: ``top_p``, or fewer - TOP_P_SHARE of the level's reports,
    rounded up, but at least MIN_SHARE_P (or all the level has) - when that share is under 1
    (Kim et al. 2025 §4.3 read every report of a level with fewer than p; a share keeps the
    saving on small corpora too)."""
    share = settings.query.top_p_share
    if share >= 1:
        return top_p
    n = next((r["reports"] for r in graph.run("query/scope_levels", scope=scope)
              if r["level"] == level), 0)
    # a small level is read whole up to MIN_SHARE_P: a quarter of 7 reports misses stories
    return max(1, min(top_p, max(math.ceil(share * n), min(n, MIN_SHARE_P))))


def cut_reports(settings: Settings, reports: list[ReportRow], trace: Trace) -> list[ReportRow]:
    """``reports`` each cut to RETAG_REPORT_TOKENS (0: whole), the cut ones counted in a
    note: more reports are read for the same map tokens, their most important part first."""
    cap = settings.query.retag_report_tokens
    if not cap:
        return reports
    out = [r.model_copy(update={"full_content": truncate(r.full_content, cap,
                                                         settings.encoding)})
           for r in reports]
    if cut := sum(a.full_content != b.full_content for a, b in zip(out, reports, strict=True)):
        trace.note(f"{cut} of {len(reports)} reports read up to their first {cap} tokens "
                   "(RETAG_REPORT_TOKENS)")
    return out


async def ask_retag(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """ReTAG: classify -> expand keywords -> top-p retrieval -> map-reduce. ``query.topic`` forces
    a topic.

    Raises LevelError when the level has no reports, InputError for an unknown topic.
    """
    level, topic, question = query_level(graph, settings, query.level), query.topic, query.question

    def p_for(scope: str, lv: int) -> int:  # an explicit --top-p is taken as asked
        return query.top_p or share_p(graph, settings, scope, lv, settings.query.top_p)

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
            offered = offered_topics(settings, topics, trace)
            topic = await classify_topic(llm, settings, question, offered, corpus, trace)
            if not topics and not settings.query.retag_topics:
                trace.note("RETAG_TOPICS=false: the general graph's reports")
            elif not topics:
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
        # a small model copies the description's names into every question's keywords
        shown = corpus if settings.query.keywords_corpus_description else ""
        trace.keywords = await expand_keywords(llm, settings, question, shown, trace)
        events.emit("keywords", keywords=trace.keywords)

    with timed(trace.seconds, "retrieve"):
        note_stale(graph, scope, trace)
        if trace.level != level:
            trace.note(f"topic {topic!r} has no level {level}: used level {trace.level}")
        reports = await retrieve_reports(graph, llm, settings, scope, trace.level, question,
                                         trace.keywords, p_for(scope, trace.level), trace, how)
        if not reports and scope != GENERAL:
            trace.note("nothing retrieved in the topic graph: fell back to the general graph")
            trace.scope = scope = GENERAL
            trace.level = check_level(graph, scope, level)
            reports = await retrieve_reports(graph, llm, settings, scope, trace.level,
                                             question, trace.keywords,
                                             p_for(scope, trace.level), trace, how)
    trace.retrieval = how.mode  # what was used (bm25 when the embedding failed under auto)
    reports = cut_reports(settings, reports, trace)
    if not reports:
        trace.note(f"{trace.retrieval} retrieval found no report for the question and "
                   "keywords")
    return await map_reduce(llm, settings, question, reports, trace, query.response_type)
