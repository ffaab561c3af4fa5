"""Retrieval for ReTAG (Kim et al. 2025 §3.3): community levels, LLM keyword expansion and
BM25 over community reports through the Neo4j full-text index (Lucene; queries parameterised),
the reports nearest to the question's embedding through the vector index, and both fused by
reciprocal rank (``RETRIEVAL=bm25|vector|hybrid``)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, field_validator

from ..config import Settings
from ..db import Graph, vectors
from ..errors import ConfigError, LevelError, LLMError
from ..llm import LLM
from ..llm.embeddings import Vector
from ..model import GENERAL, ReportRow, Trace
from ..prompts import render
from ..stages import Stage
from .embedding import embed_question, stored_vectors

REBUILD = ("run `neo4j-retag ingest --resume` (or `neo4j-retag documents delete ... --rebuild`)"
           " to rebuild them")
LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
MAX_QUERY_CHARS = 4000  # Lucene's default clause limit is far above this many terms
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009; Neo4j's and Elastic's)
log = logging.getLogger(__name__)
Mode = Literal["bm25", "vector", "hybrid"]
T = TypeVar("T")


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
        kw = await llm.structured(msgs, Keywords, stage=Stage.KEYWORDS, max_tokens=150)
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


def fuse(rankings: Sequence[Sequence[T]], key: Callable[[T], Hashable], k: int = RRF_K
         ) -> list[tuple[T, float]]:
    """Reciprocal rank fusion, the one fuser of every retrieval: each item scores the sum of
    1 / (k + rank) over the rankings it is in (rank from 1); ``(item, score)`` best first,
    the item as the first ranking holding it has it, ties in first-seen order."""
    first: dict[Hashable, T] = {}
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            first.setdefault(key(item), item)
            scores[key(item)] = scores.get(key(item), 0.0) + 1.0 / (k + rank)
    order = sorted(scores, key=lambda i: -scores[i])  # stable: ties keep first-seen order
    return [(first[i], round(scores[i], 6)) for i in order]


def fuse_reports(*rankings: list[ReportRow]) -> list[ReportRow]:
    """Reports fused by :func:`fuse`; ``score`` becomes the fused score."""
    return [row.model_copy(update={"score": score})
            for row, score in fuse(rankings, lambda row: row.id)]


@dataclass
class Retrieval:
    """How one question's reports are retrieved, decided before any call: ``mode``, and
    ``required`` when vectors were asked for by name (a failed embedding is then an error, not
    BM25 instead). A failed embedding under auto turns ``mode`` to bm25; ``vector`` keeps the
    question's embedding for a second retrieval (ReTAG's fall back to the general graph)."""

    mode: Mode
    required: bool
    vector: Vector | None = None


def plan_retrieval(graph: Graph, settings: Settings, asked: str, trace: Trace) -> Retrieval:
    """``asked`` (a question's ``--retrieval``, else RETRIEVAL) resolved: ``auto`` is hybrid
    when the reports have embeddings (and EMBEDDINGS is not false), else bm25 with a trace
    note. Raises ConfigError when vector or hybrid is asked for and the graph has no report
    embeddings, and when the stored vectors are another model's (``embedding.check_vectors``):
    call it before any LLM call."""
    if asked == "bm25":
        return Retrieval("bm25", required=False)
    # another model's vectors: refused before any call
    if stored_vectors(graph, settings, "reports") is not None:
        return Retrieval("hybrid" if asked == "auto" else asked,  # type: ignore[arg-type]
                         required=asked != "auto")
    if asked != "auto":
        raise ConfigError(f"RETRIEVAL={asked} needs community report embeddings: run "
                          "`neo4j-retag ingest` with EMBEDDINGS=true (the default)")
    trace.note("no report embeddings (EMBEDDINGS=false or not embedded yet): BM25 retrieval")
    return Retrieval("bm25", required=False)


def retrieve_vector(graph: Graph, scope: str, level: int, vector: Vector,
                    top_p: int) -> list[ReportRow]:
    """Top-p community reports of ``scope`` / ``level`` nearest to ``vector``, best first;
    ``vector`` as ``embedding.embed_question`` gives it (model, dimension and direction
    checked there, the one check)."""
    k = max(top_p, vectors.state(graph)["communities"])  # the index's k, before the filter
    return [ReportRow.from_record(r) for r in graph.run(
        "query/vector_reports", vector=vector, k=k, scope=scope, level=level, top_p=top_p)]


async def retrieve_reports(graph: Graph, llm: LLM, settings: Settings, scope: str, level: int,
                           question: str, keywords: list[str], top_p: int, trace: Trace,
                           how: Retrieval) -> list[ReportRow]:
    """ReTAG's top-p reports  by ``how`` (from
    :func:`plan_retrieval`): BM25 over the question and keywords, vector over the question's
    embedding (``how.vector``, else embedded now and kept there), or both fused by reciprocal
    rank. When the question cannot be embedded and
    vectors were not required, BM25 alone from then on (``how.mode``), with a trace note;
    else it raises (LLMError, ConfigError)."""
    bm25 = (retrieve(graph, scope, level, question, keywords, top_p)
            if how.mode != "vector" else [])
    if how.mode == "bm25":
        return bm25
    if how.vector is None:
        got = await embed_question(graph, llm, settings, [question], trace, "reports",
                                   required=how.required)
        if got is None:  # not required: noted by embed_question
            trace.note("the question could not be embedded: BM25 retrieval", logging.WARNING)
            how.mode = "bm25"
            return bm25
        how.vector = got[0]
    near = retrieve_vector(graph, scope, level, how.vector, top_p)
    return near if how.mode == "vector" else fuse_reports(bm25, near)[:top_p]
