"""ReTAG retrieval augmentation (Kim et al. 2025 §3.2.2-3.4): topic classification, keyword
expansion, BM25 retrieval of the top-p community reports, then map-reduce over only those."""

from __future__ import annotations

import re
import time
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model, field_validator
from rank_bm25 import BM25Okapi

from .communities import GENERAL
from .config import Settings
from .db import Graph
from .llm import LLM, LLMError
from .prompts import render
from .search import Answer, Trace, map_reduce

LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
MAX_QUERY_TERMS = 200


class Keywords(BaseModel):
    # short items in the schema (not enforced on parse): keywords, not sentences
    keywords: list[str] = Field([], json_schema_extra={
        "items": {"type": "string", "maxLength": 40}})

    @field_validator("keywords", mode="before")
    @classmethod
    def _list(cls, v: Any) -> list[str]:
        if isinstance(v, str):
            v = re.split(r"[,;\n]+", v)
        return [str(k).strip() for k in (v or []) if str(k).strip()][:30]


def lucene_query(*texts: str) -> str:
    """A safe Lucene query from free text: special characters escaped, operators lower-cased
    (the english analyzer lower-cases anyway), terms ORed. ``""`` when nothing is left."""
    terms: list[str] = []
    for text in texts:
        for word in text.split():
            word = LUCENE_SPECIAL.sub(r"\\\1", word.lower())
            if word.strip("\\"):
                terms.append(word)
    return " ".join(dict.fromkeys(terms))[:4000] if terms else ""


class LevelError(ValueError):
    """The requested level has no community reports; the message names what to run."""


def levels(graph: Graph, scope: str) -> list[int]:
    return [r["level"] for r in graph.run("scope_levels", scope=scope) if r["reports"]]


def default_level(graph: Graph, preferred: int) -> int:
    """``preferred`` (QUERY_LEVEL), or the deepest level there is when the graph is shallower
    (a small corpus may have only level 0)."""
    have = levels(graph, GENERAL)
    return min(preferred, max(have)) if have else preferred


def check_level(graph: Graph, scope: str, level: int) -> int:
    """``level`` if ``scope`` has reports there, else the deepest level for a topic scope.

    Raises LevelError naming the command to run when the general graph has no such level.
    """
    have = levels(graph, scope)
    if not have:
        raise LevelError("the graph has no community reports: run `neo4j-retag ingest PATH` first"
                         if scope == GENERAL else f"topic scope {scope} has no reports: run "
                         "`neo4j-retag topics build`")
    if level in have:
        return level
    if scope != GENERAL:
        return max(lv for lv in have if lv <= level) if min(have) <= level else min(have)
    raise LevelError(f"level {level} does not exist; levels with reports: {have}")


async def classify_topic(llm: LLM, settings: Settings, question: str,
                         topics: list[dict[str, Any]], corpus_description: str) -> str | None:
    """The topic name the question is about, or None (ReTAG §3.2.2); unparseable = None."""
    if not topics:
        return None
    names = tuple(t["name"] for t in topics)
    model = create_model("TopicChoice", topic=(Literal[names] | None, None))  # type: ignore[valid-type]
    listing = "\n".join(f"- {t['name']}: {t['description'] or ''}" for t in topics)
    msgs = render(settings.prompts_dir, "classify_topic", topics=listing, question=question,
                  corpus_description=corpus_description or "(none)")
    try:
        choice = await llm.structured(msgs, model, stage="classify", max_tokens=60)
    except LLMError:
        return None
    return choice.topic  # type: ignore[attr-defined]


async def expand_keywords(llm: LLM, settings: Settings, question: str,
                          corpus_description: str, max_keywords: int = 10) -> list[str]:
    """Keywords for retrieval (ReTAG §3.3 keyword expansion); [] when the model fails."""
    msgs = render(settings.prompts_dir, "expand_keywords", question=question,
                  corpus_description=corpus_description or "(none)", max_keywords=max_keywords)
    try:
        kw = await llm.structured(msgs, Keywords, stage="keywords", max_tokens=150)
    except LLMError:
        return []
    return kw.keywords[:max_keywords]


def retrieve(graph: Graph, scope: str, level: int, question: str, keywords: list[str],
             top_p: int) -> list[dict[str, Any]]:
    """Top-p community reports by BM25 through the Neo4j full-text index (Cypher, parameterised).

    An empty query (a question of only punctuation) retrieves nothing.
    """
    query = lucene_query(question, *keywords)
    if not query:
        return []
    return graph.run("search_reports", query=query, scope=scope, level=level, top_p=top_p)


def bm25_rank(reports: list[dict[str, Any]], question: str, keywords: list[str],
              top_p: int) -> list[dict[str, Any]]:
    """The same retrieval scored in Python with rank-bm25 (for evaluation, or a graph whose
    full-text index is unavailable)."""
    tokenize = lambda s: re.findall(r"\w+", (s or "").lower())  # noqa: E731
    docs = [tokenize(f"{r['title']} {r['full_content']}") for r in reports]
    if not docs:
        return []
    scores = BM25Okapi(docs).get_scores(tokenize(" ".join([question, *keywords])))
    ranked = sorted(zip(scores, range(len(reports)), strict=True), key=lambda x: (-x[0], x[1]))
    return [{**reports[i], "score": float(s)} for s, i in ranked[:top_p] if s > 0]


async def ask_retag(graph: Graph, llm: LLM, settings: Settings, question: str, *,
                    level: int, top_p: int, topic: str | None = None,
                    response_type: str = "multiple paragraphs") -> Answer:
    """ReTAG: classify -> expand keywords -> BM25 top-p -> map-reduce. ``topic`` forces one.

    Raises LevelError when the level has no reports, ValueError for an unknown ``topic``.
    """
    trace = Trace(method="retag", level=level)
    t0 = time.perf_counter()
    topics = graph.run("topics")
    corpus = topics[0]["corpus_description"] if topics else (
        graph.run("corpus")[0]["description"] or "")
    if topic is not None and topic not in {t["name"] for t in topics}:
        raise ValueError(f"unknown topic {topic!r}; topics: {[t['name'] for t in topics]}")
    if topic is None:
        topic = await classify_topic(llm, settings, question, topics, corpus)
        if not topics:
            trace.notes.append("no topics stored (run `neo4j-retag topics build`): general graph")
    trace.topic = topic
    scope = next((t["label"] for t in topics if t["name"] == topic), GENERAL)
    trace.scope = scope
    trace.seconds["classify"] = round(time.perf_counter() - t0, 3)

    t1 = time.perf_counter()
    trace.keywords = await expand_keywords(llm, settings, question, corpus)
    trace.seconds["keywords"] = round(time.perf_counter() - t1, 3)

    t2 = time.perf_counter()
    trace.level = check_level(graph, scope, level)
    if trace.level != level:
        trace.notes.append(f"topic {topic!r} has no level {level}: used level {trace.level}")
    reports = retrieve(graph, scope, trace.level, question, trace.keywords, top_p)
    if not reports and scope != GENERAL:
        trace.notes.append("nothing retrieved in the topic graph: fell back to the general graph")
        trace.scope = scope = GENERAL
        trace.level = check_level(graph, scope, level)
        reports = retrieve(graph, scope, trace.level, question, trace.keywords, top_p)
    trace.seconds["retrieve"] = round(time.perf_counter() - t2, 3)
    if not reports:
        trace.notes.append("BM25 retrieved no report for the question and keywords")
    return await map_reduce(llm, settings, question, reports, trace, response_type)


async def ask_global(graph: Graph, llm: LLM, settings: Settings, question: str, *, level: int,
                     response_type: str = "multiple paragraphs", scope: str = GENERAL) -> Answer:
    """GraphRAG's global search baseline: every report at ``level``, map-reduced."""
    check_level(graph, scope, level)
    reports = graph.run("reports_at_level", scope=scope, level=level)
    trace = Trace(method="global", level=level, scope=scope)
    return await map_reduce(llm, settings, question, reports, trace, response_type)
