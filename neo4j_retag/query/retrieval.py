"""Retrieval for ReTAG (Kim et al. 2025 §3.3): community levels, LLM keyword expansion and
BM25 over community reports through the Neo4j full-text index (Lucene; queries parameterised),
the reports nearest to the question's embedding through the vector index, and both fused by
reciprocal rank (``RETRIEVAL=bm25|vector|hybrid``; issue 19)."""

from __future__ import annotations

import logging
import re
from collections.abc import Hashable, Iterable
from typing import Any

from pydantic import BaseModel, Field, field_validator

from ..config import Settings
from ..db import Graph, vectors
from ..errors import ConfigError, LevelError, LLMError
from ..llm import LLM
from ..model import GENERAL, ReportRow, Trace
from ..prompts import render
from .embedding import check_vectors, embed_question

REBUILD = ("run `neo4j-retag ingest --resume` (or `neo4j-retag documents delete ... --rebuild`)"
           " to rebuild them")
LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
MAX_QUERY_CHARS = 4000  # Lucene's default clause limit is far above this many terms
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009; Neo4j's and Elastic's)
log = logging.getLogger(__name__)


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
    return " ".join(dict.fromkeys(terms))[:MAX_QUERY_CHARS] if terms else ""


def levels(graph: Graph, scope: str) -> list[int]:
    """The levels of ``scope`` that have at least one community report, ascending."""
    return [r["level"] for r in graph.run("query/scope_levels", scope=scope) if r["reports"]]


def note_stale(graph: Graph, scope: str, trace: Trace) -> int:
    """Count the reports of ``scope`` left out because documents were deleted since they were
    built (``report_status: 'stale'``: no query reads them), in the trace with a warning."""
    n = sum(r["stale"] for r in graph.run("query/scope_levels", scope=scope))
    if n:
        trace.stale_reports = n
        trace.note(f"{n} community reports left out: their members changed since they were "
                   f"built (documents deleted); {REBUILD}", logging.WARNING)
    return n


def default_level(graph: Graph, preferred: int) -> int:
    """``preferred`` (QUERY_LEVEL), or the deepest level there is when the graph is shallower
    (a small corpus may have only level 0)."""
    have = levels(graph, GENERAL)
    return min(preferred, max(have)) if have else preferred


def query_level(graph: Graph, settings: Settings, level: int | None) -> int:
    """``level``, or the default level when None (see :func:`default_level`)."""
    return default_level(graph, settings.query.level) if level is None else level


def check_level(graph: Graph, scope: str, level: int) -> int:
    """``level`` if ``scope`` has reports there, else the deepest level for a topic scope.

    Raises LevelError naming the command to run when the general graph has no such level.
    """
    rows = graph.run("query/scope_levels", scope=scope)
    have = [r["level"] for r in rows if r["reports"]]
    stale = {r["level"] for r in rows if r["stale"]}
    if stale and (not have or (level not in have and level in stale and scope == GENERAL)):
        raise LevelError(f"every community report {'' if not have else f'of level {level} '}"
                         f"is stale: documents were deleted since it was built; {REBUILD}")
    if not have:
        raise LevelError("the graph has no community reports: run `neo4j-retag ingest PATH` first"
                         if scope == GENERAL else f"topic scope {scope} has no reports: run "
                         "`neo4j-retag topics build`")
    if level in have:
        return level
    if scope != GENERAL:
        return max(lv for lv in have if lv <= level) if min(have) <= level else min(have)
    raise LevelError(f"level {level} does not exist; levels with reports: {have}")


async def expand_keywords(llm: LLM, settings: Settings, question: str, corpus_description: str,
                          trace: Trace, max_keywords: int = 10) -> list[str]:
    """Keywords for retrieval (ReTAG §3.3 keyword expansion); [] with a trace note when the
    model fails (retrieval then uses the question's own words)."""
    msgs = render("query/expand_keywords", question=question,
                  corpus_description=corpus_description or "(none)", max_keywords=max_keywords)
    try:
        kw = await llm.structured(msgs, Keywords, stage="keywords", max_tokens=150)
    except LLMError as err:
        trace.note(f"keyword expansion failed ({err}): the question's words only")
        return []
    return kw.keywords[:max_keywords]


def retrieve(graph: Graph, scope: str, level: int, question: str, keywords: list[str],
             top_p: int) -> list[ReportRow]:
    """Top-p community reports by BM25 through the Neo4j full-text index, best first.

    An empty query (a question of only punctuation) retrieves nothing.
    """
    query = lucene_query(question, *keywords)
    if not query:
        return []
    return [ReportRow.from_record(r) for r in graph.run(
        "query/search_reports", query=query, scope=scope, level=level, top_p=top_p)]


def rrf_scores(rankings: Iterable[Iterable[Hashable]], k: int = RRF_K) -> dict[Hashable, float]:
    """Reciprocal rank fusion: each key scores the sum of 1 / (k + rank) over the rankings it
    is in (rank from 1); keys in first-seen order."""
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


def fuse(*rankings: list[ReportRow], k: int = RRF_K) -> list[ReportRow]:
    """Reports fused by reciprocal rank (``rrf_scores``); best first, ties by id. ``score``
    becomes the fused score."""
    rows = {row.id: row for ranking in reversed(rankings) for row in ranking}
    scores = rrf_scores(([row.id for row in ranking] for ranking in rankings), k)
    order = sorted(scores, key=lambda i: (-scores[i], i))
    return [rows[i].model_copy(update={"score": round(scores[i], 6)}) for i in order]


def retrieval_mode(graph: Graph, settings: Settings, trace: Trace) -> str:
    """RETRIEVAL resolved: ``auto`` is hybrid when the reports have embeddings (and
    EMBEDDINGS is not false), else bm25 with a trace note. Raises ConfigError when vector or
    hybrid is asked for and the graph has no report embeddings, and when the stored vectors
    are another model's (``embedding.check_vectors``): call it before any LLM call."""
    mode = settings.query.retrieval
    if mode == "bm25":
        return mode
    st = check_vectors(graph, settings)  # another model's vectors: refused before any call
    have = st is not None and vectors.available(st)
    if have:
        return "hybrid" if mode == "auto" else mode
    if mode != "auto":
        raise ConfigError(f"RETRIEVAL={mode} needs community report embeddings: run "
                          "`neo4j-retag ingest` with EMBEDDINGS=true (the default)")
    trace.note("no report embeddings (EMBEDDINGS=false or not embedded yet): BM25 retrieval")
    return "bm25"


def retrieve_vector(graph: Graph, scope: str, level: int, vector: list[float],
                    top_p: int) -> list[ReportRow]:
    """Top-p community reports of ``scope`` / ``level`` nearest to ``vector``, best first.
    ``vector`` comes from ``embedding.embed_question`` (model checked); raises ConfigError
    when it cannot be compared with the stored vectors (dimension, no direction)."""
    st = vectors.state(graph)
    vectors.check_query(st, vector, st["model"])
    return [ReportRow.from_record(r) for r in graph.run(
        "query/vector_reports", vector=vector, k=max(top_p, st["communities"]), scope=scope,
        level=level, top_p=top_p)]


async def retrieve_reports(graph: Graph, llm: LLM, settings: Settings, scope: str, level: int,
                           question: str, keywords: list[str], top_p: int, trace: Trace,
                           vector: list[float] | None = None) -> tuple[list[ReportRow],
                                                                        list[float] | None]:
    """ReTAG's top-p reports by ``trace.retrieval`` (set by ``retrieval_mode``): BM25 over the
    question and keywords, vector over the question's embedding (``vector``, else embedded
    now), or both fused by reciprocal rank. Returns the reports and the question vector (for
    a second call). When the question cannot be embedded under RETRIEVAL=auto, BM25 alone
    with a trace note; an explicit vector / hybrid raises (LLMError, ConfigError)."""
    mode = trace.retrieval or "bm25"
    bm25 = retrieve(graph, scope, level, question, keywords, top_p) if mode != "vector" else []
    if mode == "bm25":
        return bm25, vector
    if vector is None:
        got = await embed_question(graph, llm, settings, [question], trace, "reports",
                                   required=settings.query.retrieval != "auto")
        if got is None:  # RETRIEVAL=auto: noted by embed_question
            trace.note("the question could not be embedded: BM25 retrieval", logging.WARNING)
            trace.retrieval = "bm25"
            return bm25, None
        vector = got[0]
    near = retrieve_vector(graph, scope, level, vector, top_p)
    return (near if mode == "vector" else fuse(bm25, near)[:top_p]), vector
