"""`neo4j-retag ask`: one entry point for every query method.

retag (ReTAG, the default), global (GraphRAG global search), and the baselines of Edge et al.
§3.2: local search, rag (BM25 over text units) and ts (map-reduce over text units).
"""

from __future__ import annotations

from . import baselines
from .config import Settings
from .db import Graph
from .llm import LLM
from .refine import refine
from .retag import ask_global, ask_retag
from .search import Answer

METHODS = ("retag", "global", "local", "rag", "ts")


async def answer(method: str, graph: Graph, llm: LLM, settings: Settings, question: str, *,
                 level: int, top_p: int | None = None, topic: str | None = None,
                 response_type: str = "multiple paragraphs", refine_rounds: int = 0) -> Answer:
    """Answer ``question`` by ``method``, then refine it for up to ``refine_rounds`` rounds
    (KGiRAG-style, retag and global only). Raises ValueError for an unknown method or topic,
    LevelError when the level has no reports."""
    first = await _answer(method, graph, llm, settings, question, level=level, top_p=top_p,
                          topic=topic, response_type=response_type)
    if refine_rounds <= 0 or method not in ("retag", "global"):
        return first
    final, rounds = await refine(graph, llm, settings, question, first, rounds=refine_rounds,
                                 top_p=top_p or settings.top_p, response_type=response_type)
    final.trace.refinement = [r.model_dump() for r in rounds]
    return final


async def _answer(method: str, graph: Graph, llm: LLM, settings: Settings, question: str, *,
                  level: int, top_p: int | None, topic: str | None,
                  response_type: str) -> Answer:
    if method == "retag":
        return await ask_retag(graph, llm, settings, question, level=level,
                               top_p=top_p or settings.top_p, topic=topic,
                               response_type=response_type)
    if method == "global":
        return await ask_global(graph, llm, settings, question, level=level,
                                response_type=response_type)
    if method == "local":
        return await baselines.ask_local(graph, llm, settings, question, level=level,
                                         response_type=response_type)
    if method == "rag":
        return await baselines.ask_rag(graph, llm, settings, question,
                                       response_type=response_type)
    if method == "ts":
        return await baselines.ask_ts(graph, llm, settings, question,
                                      response_type=response_type)
    raise ValueError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
