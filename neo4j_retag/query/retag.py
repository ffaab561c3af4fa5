"""ReTAG retrieval augmentation (Kim et al. 2025 §3.2.2-3.4): topic classification, keyword
expansion, retrieval of the top-p community reports (BM25, vector or both fused: RETRIEVAL),
then map-reduce over only those - whatever the endpoint. ``retag-quoted`` is the small model's
configuration: the same retrieval, the answer quoted from the sources (query/answer)."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, create_model

from .. import events
from ..config import Group, Settings, env
from ..db import Graph, Record
from ..errors import InputError, LLMError
from ..llm import LLM
from ..model import GENERAL, Answer, Query, ReportRow, Trace, timed
from ..prompts import render
from ..stages import Stage
from ..tokens import truncate
from .answer import MAP_REDUCE as MAP_REDUCE_ANSWER
from .answer import ONE_CALL, QUOTE, Context, respond
from .contract import Method, Options, option, variant
from .retrieval import (
    Mode,
    check_level,
    expand_keywords,
    note_stale,
    plan_retrieval,
    query_level,
    retrieve_reports,
)


class RetagSettings(Group):
    """ReTAG (`--method retag` and its variants)."""

    # TOP_P, RETAG_TOPICS and RETAG_TOPIC_MAX_SHARE are the query group's: the index and
    # refinement read them too

    top_p_share: float = env(
        "TOP_P_SHARE", 1.0, "ReTAG retrieves at most this share of the level's reports: p = "
        "min(`TOP_P`, max(⌈share × reports⌉, 8 or all when fewer)); an explicit `--top-p` is "
        "taken as asked; 1 = the paper's fixed p; `retag-quoted` sets 0.25 "
        "([Evaluation](evaluation/history.md#retag-arm-by-arm-with-the-embedded-model))",
        gt=0, le=1)
    report_tokens: int = env(
        "RETAG_REPORT_TOKENS", 0, "ReTAG reads each retrieved report up to this many tokens "
        "(title, summary, first findings: GraphRAG orders findings by importance), a trace note "
        "counting the cut ones; 0 = whole reports; `retag-quoted` sets 600", ge=0)
    max_topics: int = env(
        "RETAG_MAX_TOPICS", 2, "a question that spans topics is classified into up to this "
        "many; each topic's subgraph gives its share of the p reports (a trace note names them; "
        "the trace's `topic`/`scope` are the first one's)", ge=1)
    retrieval: Literal["auto", "bm25", "vector", "hybrid"] = env(
        "RETRIEVAL", "auto", "ReTAG's report retrieval: `bm25`, `vector`, `hybrid` (both, "
        "reciprocal rank fusion); `auto` = hybrid when the reports have embeddings, else bm25 "
        "with a trace note")


class RetagOptions(Options):
    """ReTAG's `ask` options."""

    # bounded: a top_p near 2**62 overflowed inside Neo4j's vector search
    top_p: int | None = option("reports retrieved by BM25 (default TOP_P)", ge=1, le=10_000)
    topic: str | None = option("force a topic instead of classifying", max_length=200)
    retrieval: Mode | None = option("its reports by BM25, by embedding, or both fused by "
                                    "reciprocal rank (default RETRIEVAL)")


async def classify_topics(llm: LLM, settings: Settings, question: str,
                          topics: list[Record], corpus_description: str,
                          trace: Trace) -> list[str]:
    """The names of the topics the question is about, most relevant first: one, up to
    RETAG_MAX_TOPICS when the question spans topics, or none (ReTAG §3.2.2; a question the
    paper's single topic would cut in half reads each of its topics). A failed classification
    is none with a trace note: the general graph answers."""
    if not topics:
        return []
    names = tuple(t["name"] for t in topics)
    most = settings.method(RetagSettings).max_topics
    model = create_model("TopicChoice", topics=(  # type: ignore[call-overload]
        list[Literal[names]], Field([], json_schema_extra={"maxItems": most})))  # type: ignore[valid-type]
    listing = "\n".join(f"- {t['name']}: {t['description'] or ''}" for t in topics)
    msgs = render("query/classify_topic", topics=listing, max_topics=str(most),
                  question=question, corpus_description=corpus_description or "(none)")
    try:
        choice = await llm.structured(msgs, model, stage=Stage.CLASSIFY,
                                      max_tokens=30 + 30 * most)
    except LLMError as err:
        trace.note(f"topic classification failed ({err}): general graph")
        return []
    # the reply's list is cut to the schema's maxItems by llm.structured
    chosen = list(dict.fromkeys(choice.topics))  # type: ignore[attr-defined]
    if not chosen:
        trace.note("the question matches no topic: general graph")
    elif len(chosen) > 1:
        trace.note(f"the question spans {len(chosen)} topics: "
                   f"{', '.join(map(repr, chosen))}; each gives its share of the p reports")
    return chosen


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


def pool(graph: Graph, scope: str, level: int) -> int:
    """Reports at ``scope`` / ``level``."""
    return graph.run("query/retag_pool", scope=scope, level=level)[0]["reports"]


def share_p(graph: Graph, settings: Settings, scope: str, level: int, top_p: int) -> int:
    """p for one scope and level: ``top_p``, or fewer - TOP_P_SHARE of the level's reports,
    rounded up, but at least MIN_SHARE_P (or all there are) - when that share is under 1
    (Kim et al. 2025 §4.3 read every report of a level with fewer than p; a share keeps the
    saving on small corpora too)."""
    share = settings.method(RetagSettings).top_p_share
    if share >= 1:
        return top_p
    n = pool(graph, scope, level)
    # a small level is read whole up to MIN_SHARE_P: a quarter of 7 reports misses stories
    return max(1, min(top_p, max(math.ceil(share * n), min(n, MIN_SHARE_P))))


def cut_reports(settings: Settings, reports: list[ReportRow], trace: Trace) -> list[ReportRow]:
    """``reports`` each cut to RETAG_REPORT_TOKENS (0: whole), the cut ones counted in a
    note: more reports are read for the same map tokens, their most important part first."""
    cap = settings.method(RetagSettings).report_tokens
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
    """ReTAG: classify -> expand keywords -> top-p retrieval -> map-reduce. The ``topic``
    option forces a topic. A question classified into several topics (RETAG_MAX_TOPICS) reads
    each topic's subgraph, p split between them (the trace's topic and scope are the first
    one's; a note names the others).

    Raises LevelError when the level has no reports, InputError for an unknown topic.
    """
    level, question = query_level(graph, settings, query.level), query.question
    opts = RetagOptions.of(query)

    def p_for(scope: str, lv: int) -> int:  # an explicit --top-p taken as asked
        return opts.top_p or share_p(graph, settings, scope, lv, settings.query.top_p)

    trace = Trace(method="retag", level=level)
    # before any call: vectors of another model are refused, never compared
    how = plan_retrieval(graph, settings, opts.retrieval or settings.method(RetagSettings)
                         .retrieval, trace)
    with timed(trace.seconds, "classify"):
        topics = graph.run("query/topics")
        corpus = topics[0]["corpus_description"] if topics else (
            graph.run("query/corpus")[0]["description"] or "")
        if opts.topic is not None and opts.topic not in {t["name"] for t in topics}:
            raise InputError(f"unknown topic {opts.topic!r}; topics: "
                             f"{[t['name'] for t in topics]}")
        chosen = [opts.topic] if opts.topic is not None else []
        if opts.topic is None:
            offered = offered_topics(settings, topics, trace)
            chosen = await classify_topics(llm, settings, question, offered, corpus, trace)
            if not topics and not settings.query.retag_topics:
                trace.note("RETAG_TOPICS=false: the general graph's reports")
            elif not topics:
                lazy = graph.run("query/lazy_index")[0]["lazy"]  # topics are never built there
                trace.note("a lazy index has no topics: general graph" if lazy else
                           "no topics stored (run `neo4j-retag topics build`): general graph")
        label = {t["name"]: t["label"] for t in topics}
        scopes = [label[t] for t in chosen] or [GENERAL]
        topic_of = {label[t]: t for t in chosen}
        trace.topic = chosen[0] if chosen else None
        trace.scope = scopes[0]
        events.emit("topic", topic=trace.topic, scope=trace.scope)

        # before keyword expansion: a graph with no reports fails with no call paid for it
        levels = {scope: check_level(graph, scope, level) for scope in scopes}
        trace.level = levels[scopes[0]]

    with timed(trace.seconds, "keywords"):
        # the corpus description is not shown: a small model copies its names into every
        # question's keywords
        trace.keywords = await expand_keywords(llm, settings, question, "", trace)
        events.emit("keywords", keywords=trace.keywords)

    async def from_scopes(chosen_levels: dict[str, int]) -> list[ReportRow]:
        out: dict[int, ReportRow] = {}
        for scope, lv in chosen_levels.items():
            note_stale(graph, scope, trace)
            if lv != level:
                trace.note(f"topic {topic_of.get(scope, scope)!r} has no level {level}: used "
                           f"level {lv}")
            p = math.ceil(p_for(scope, lv) / len(chosen_levels))
            for r in await retrieve_reports(graph, llm, settings, scope, lv, question,
                                            trace.keywords, p, trace, how):
                out.setdefault(r.id, r)
        return list(out.values())

    with timed(trace.seconds, "retrieve"):
        reports = await from_scopes(levels)
        if not reports and trace.scope != GENERAL:
            trace.note("nothing retrieved in the topic graph: fell back to the general graph")
            trace.scope = GENERAL
            trace.level = check_level(graph, GENERAL, level)
            reports = await from_scopes({GENERAL: trace.level})
    trace.retrieval = how.mode  # what was used (bm25 when the embedding failed under auto)
    reports = cut_reports(settings, reports, trace)
    if not reports:
        trace.note(f"{trace.retrieval} retrieval found no report for the question and "
                   "keywords")
    return await respond(graph, llm, settings, query, Context(reports=reports, cover=True),
                         trace, RETAG_ANSWERS)


RETAG_ANSWERS = (MAP_REDUCE_ANSWER, ONE_CALL, QUOTE)
RETAG = Method(
    "retag", ask_retag, "ReTAG: topic, keywords, BM25 top-p reports, map-reduce",
    options=RetagOptions, settings=RetagSettings, refinable=True, needs_reports=True, rank=0,
    answers=RETAG_ANSWERS)
# the paper's retrieval-only arm (Kim et al. 2025): ReTAG over the general graph's reports,
# no topic classification (what RETAG_TOPICS=false does for retag itself)
RETAG_GENERAL = variant(
    RETAG, "retag-general", "ReTAG without its topic layer: keywords, top-p of the general "
    "graph's reports, map-reduce (the paper's retrieval-only arm)", module=__name__,
    without=("topic",), retag_topics=False)
# the small model's configuration, measured on corpora it indexed itself (docs/evaluation.md):
# ReTAG's keywords and retrieval over the general graph's reports, a quarter of the level's
# (at least 8), the answer quoted from the sources' sentences the reports rest on
RETAG_QUOTED = variant(
    RETAG, "retag-quoted", "ReTAG's keywords and top-p retrieval over the general graph's "
    "reports, the answer quoted from the sources' sentences they rest on (no answer call)",
    module=__name__, rank=0, without=("topic",), retag_topics=False, top_p_share=0.25,
    retag_report_tokens=600, answer="quote")
# the small model's configuration with ReTAG's topic layer: the question classified into the
# topics built from the general graph's communities (TOPIC_MODE=communities, no written topic
# report), the top-p of that topic subgraph's reports, the answer quoted from their evidence
RETAG_QUOTED_TOPICS = variant(
    RETAG, "retag-quoted-topics", "retag-quoted with ReTAG's topic layer: the question "
    "classified into a topic, the top-p of its subgraph's reports, the answer quoted from "
    "the sources' sentences they rest on", module=__name__, retag_topics=True,
    top_p_share=0.25, retag_report_tokens=600, answer="quote")
