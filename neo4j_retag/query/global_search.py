"""GraphRAG's global search (Edge et al. 2024 §3.1.6): map-reduce over every community report
of one level - the baseline ReTAG is measured against, and how ReTAG mines its topics."""

from __future__ import annotations

from ..config import Settings
from ..db import Graph
from ..llm import LLM
from ..model import GENERAL, Answer, Query, Trace
from .answer import MAP_REDUCE as MAP_REDUCE_ANSWER
from .answer import ONE_CALL, QUOTE, Context, respond
from .answer.map_reduce import map_reduce, map_reduce_many
from .common import reports_at_level
from .contract import Method
from .retrieval import note_stale, query_level


async def global_answer(graph: Graph, llm: LLM, settings: Settings, question: str, *,
                        level: int, response_type: str = "multiple paragraphs",
                        scope: str = GENERAL) -> Answer:
    """Map-reduce over every report of ``scope`` at ``level`` (used by topic mining too)."""
    reports = reports_at_level(graph, scope, level)
    trace = Trace(method="global", level=level, scope=scope)
    note_stale(graph, scope, trace)
    return await map_reduce(llm, settings, question, reports, trace, response_type)


async def global_answers(graph: Graph, llm: LLM, settings: Settings, map_question: str,
                         reduces: list[tuple[str, str]], *, level: int,
                         scope: str = GENERAL) -> list[Answer]:
    """Several global answers over the reports of ``scope`` at ``level`` from one map pass
    (``map_question``), one reduce per ``(question, response_type)``: topic mining's two
    questions read the level's reports once."""
    reports = reports_at_level(graph, scope, level)
    trace = Trace(method="global", level=level, scope=scope)
    note_stale(graph, scope, trace)
    return await map_reduce_many(llm, settings, map_question, reports, trace, reduces)


async def ask_global(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """The `global` method: every report of the level, answered by map-reduce (or the
    answerer asked for, query/answer). Raises LevelError when the level has no reports."""
    level = query_level(graph, settings, query.level)
    reports = reports_at_level(graph, GENERAL, level)
    trace = Trace(method="global", level=level)
    note_stale(graph, GENERAL, trace)
    return await respond(graph, llm, settings, query, Context(reports=reports, cover=True),
                         trace, GLOBAL_ANSWERS)


GLOBAL_ANSWERS = (MAP_REDUCE_ANSWER, ONE_CALL, QUOTE)
GLOBAL = Method("global", ask_global, "GraphRAG global search: map-reduce over a level's "
                "reports", refinable=True, needs_reports=True, rank=1, answers=GLOBAL_ANSWERS)
