"""The query side: every method of `neo4j-retag ask`, one shape for all of them.

A method is ``async (graph, llm, settings, query: Query) -> Answer``; :data:`METHODS` maps the
``--method`` names to them (the CLI's choices come from it) and :func:`answer` runs one, then
optional KGiRAG-style refinement. retag (ReTAG, the default), global (GraphRAG global search),
global-dynamic (global search with GraphRAG's dynamic community selection),
the baselines of Edge et al. §3.2: local search, rag (BM25 over text units) and ts
(map-reduce over text units), and auto (one classification call picks retag/global or local).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..config import Settings
from ..db import Graph
from ..errors import InputError
from ..llm import LLM
from ..model import Answer, Query
from .auto import ask_auto
from .basic import ask_rag, ask_ts
from .dynamic import ask_global_dynamic
from .global_search import ask_global
from .local import ask_local
from .refine import refine
from .retag import ask_retag

Method = Callable[[Graph, LLM, Settings, Query], Awaitable[Answer]]

METHODS: dict[str, Method] = {
    "retag": ask_retag,
    "global": ask_global,
    "global-dynamic": ask_global_dynamic,
    "local": ask_local,
    "rag": ask_rag,
    "ts": ask_ts,
    "auto": ask_auto,  # one classification call: a global question -> retag, specific -> local
}
REFINABLE = ("retag", "global")  # methods whose answers cite community reports


async def answer(method: str, graph: Graph, llm: LLM, settings: Settings, query: Query, *,
                 refine_rounds: int = 0) -> Answer:
    """Answer ``query`` by ``method``, then refine it for up to ``refine_rounds`` rounds
    (KGiRAG-style, retag and global only). Raises InputError for an unknown method or topic,
    LevelError when the level has no reports."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    first = await METHODS[method](graph, llm, settings, query)
    if refine_rounds <= 0 or first.trace.method not in REFINABLE:  # auto: what it chose
        return first
    final, rounds = await refine(graph, llm, settings, query.question, first,
                                 rounds=refine_rounds, top_p=query.top_p or settings.top_p,
                                 response_type=query.response_type)
    final.trace.refinement = rounds
    return final


__all__ = ["METHODS", "Method", "answer"]
