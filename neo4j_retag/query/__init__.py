"""The query side: every method of `neo4j-retag ask`, one shape for all of them.

A method is ``async (graph, llm, settings, query: Query) -> Answer``, registered in
:data:`METHODS` under its ``--method`` name with a one-line help and whether KGiRAG refinement
applies (the CLI's choices and help come from it); :func:`answer` runs one, then optional
refinement. retag (ReTAG, the default), global (GraphRAG global search), global-dynamic
(global search with GraphRAG's dynamic community selection), drift (GraphRAG's DRIFT search:
primer, follow-ups by local search, reduce), and the baselines of Edge et al. §3.2: local
search, rag (BM25, vector or hybrid over text units) and ts (map-reduce over text units); lazy
(LazyGraphRAG: relevance tests under a budget, claims of text units); and auto (one
classification call picks retag/global or local). Method modules share helpers through
``common``, never through each other (auto reaches the others through the registry).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass

from ..config import Settings
from ..db import Graph
from ..errors import InputError
from ..llm import LLM
from ..model import Answer, Query
from .auto import auto_method
from .basic import ask_rag, ask_ts
from .citations import locate
from .drift import ask_drift
from .dynamic import ask_global_dynamic
from .global_search import ask_global
from .lazy import ask_lazy
from .lazy_reports import ensure_reports, is_lazy, needed_levels, note_built
from .local import ask_local
from .refine import refine
from .retag import ask_retag

MethodFn = Callable[[Graph, LLM, Settings, Query], Awaitable[Answer]]


@dataclass(frozen=True)
class Method:
    """A registered query method: called as its function; ``refinable`` when its answers cite
    community reports of one scope and level, which KGiRAG refinement retrieves more of;
    ``needs_reports`` when it reads a level's reports (a lazy index builds them on demand)."""

    run: MethodFn
    help: str
    refinable: bool = False
    # reads a level's community reports: a lazy index builds those first (on demand)
    needs_reports: bool = False

    async def __call__(self, graph: Graph, llm: LLM, settings: Settings,
                       query: Query) -> Answer:
        return await self.run(graph, llm, settings, query)


METHODS: dict[str, Method] = {
    "retag": Method(ask_retag, "ReTAG: topic, keywords, BM25 top-p reports, map-reduce",
                    refinable=True, needs_reports=True),
    "global": Method(ask_global, "GraphRAG global search: map-reduce over a level's reports",
                     refinable=True, needs_reports=True),
    "global-dynamic": Method(ask_global_dynamic, "global search over the reports the LLM "
                             "rates relevant from the root down (GraphRAG's dynamic selection)",
                             needs_reports=True),
    "local": Method(ask_local, "local search: entities nearest the question by embedding "
                    "(string match without embeddings), their relationships, claims, reports "
                    "and text units"),
    "drift": Method(ask_drift, "DRIFT search: a primer over the reports nearest a hypothetical "
                    "answer, follow-up questions answered by local search, a ranked reduce",
                    needs_reports=True),
    "rag": Method(ask_rag, "text units by BM25 (--retrieval vector|hybrid: by embedding, or "
                  "both fused), one answer call"),
    "ts": Method(ask_ts, "text summarisation: map-reduce over every text unit"),
    "lazy": Method(ask_lazy, "LazyGraphRAG: relevance tests of text units under --budget, "
                   "claims citing text units; on a lazy index or a full one"),
}


async def run_method(method: str, graph: Graph, llm: LLM, settings: Settings,
                     query: Query) -> Answer:
    """One registered method; on a lazy index the reports it reads are built first (on
    demand, query/lazy_reports.py) and said in its trace."""
    if not (METHODS[method].needs_reports and is_lazy(graph)):
        return await METHODS[method](graph, llm, settings, query)
    levels = needed_levels(graph, settings, method, query.level)
    built = await ensure_reports(graph, llm, settings, levels)
    got = await METHODS[method](graph, llm, settings, query)
    note_built(got.trace, built, levels)
    return got


class _Prepared(Mapping[str, MethodFn]):
    """The registry as auto calls it: through :func:`run_method`, so a method auto chooses
    on a lazy index gets its reports built as when it is asked for by name."""

    def __getitem__(self, name: str) -> MethodFn:
        return functools.partial(run_method, name)

    def __iter__(self) -> Iterator[str]:
        return iter(METHODS)

    def __len__(self) -> int:
        return len(METHODS)


# auto answers through the registry itself (method modules never import each other)
METHODS["auto"] = Method(auto_method(_Prepared()), "one classification call: a global "
                         "question -> retag (global without topics), a specific one -> local")


async def answer(method: str, graph: Graph, llm: LLM, settings: Settings, query: Query, *,
                 refine_rounds: int = 0) -> Answer:
    """Answer ``query`` by ``method``, then refine it for up to ``refine_rounds`` rounds
    (KGiRAG-style, refinable methods only). Raises InputError for an unknown method or topic,
    LevelError when the level has no reports."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    truncated = llm.usage.truncated if llm is not None else []
    cut = len(truncated)
    first = await run_method(method, graph, llm, settings, query)
    for line in dict.fromkeys(truncated[cut:]):  # prompts the endpoint cut silently
        first.trace.note(line, logging.WARNING)
    chosen = first.trace.method if method == "auto" else method  # auto: what it chose
    # an option the method does not use is said, not silently dropped
    if query.budget is not None and chosen != "lazy":
        first.trace.note(f"the budget applies to the lazy method only: {chosen} ignored it")
    if query.retrieval is not None and chosen not in ("rag", "retag"):
        first.trace.note(f"the retrieval option applies to rag and retag only: {chosen} "
                         "ignored it")
    if refine_rounds > 0 and not METHODS[chosen].refinable:
        refinable = ", ".join(n for n, m in METHODS.items() if m.refinable)
        first.trace.note(f"refinement applies to {refinable} only: the {chosen} answer is "
                         "not refined")
    if refine_rounds <= 0 or not METHODS[chosen].refinable:
        return locate(graph, first)
    final, rounds = await refine(graph, llm, settings, query.question, first,
                                 rounds=refine_rounds, top_p=query.top_p or settings.query.top_p,
                                 response_type=query.response_type)
    final.trace.refinement = rounds
    return locate(graph, final)


__all__ = ["METHODS", "Method", "MethodFn", "answer"]
