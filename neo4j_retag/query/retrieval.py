"""Retrieval for ReTAG (Kim et al. 2025 §3.3): community levels, LLM keyword expansion and
BM25 over community reports through the Neo4j full-text index (Lucene; queries parameterised)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

from ..config import Settings
from ..db import Graph
from ..errors import LevelError, LLMError
from ..llm import LLM
from ..model import GENERAL, ReportRow, Trace
from ..prompts import render

LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
MAX_QUERY_CHARS = 4000  # Lucene's default clause limit is far above this many terms


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
