"""Local search (Edge et al. 2024's local mode, a §3.2 comparison condition), as Microsoft
GraphRAG does it: entities seeded by the embedding similarity of the question to their
descriptions (string match as the fallback without embeddings, with a trace note), then their
relationships, claims, community reports and the text units that mention them within one
context budget (``query/local_context.py``), answered in one call citing reports and text
units."""

from __future__ import annotations

from .. import events
from ..config import Settings
from ..db import Graph
from ..llm import LLM
from ..model import GENERAL, Answer, Query, Trace, timed
from .citations import cited_sources
from .common import answer_from, no_answer_for
from .contract import Method, report_lines
from .local_context import WITHHELD_NOTE, build_context, seed
from .retrieval import check_level, query_level


async def ask_local(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """Local search at ``query.level``; cites reports and text units. ``trace.seeding`` says
    how the entities were found (embedding or full_text) and which, best first. Raises
    LevelError for a ``query.level`` the graph has no reports at."""
    level = query_level(graph, settings, query.level)
    if query.level is not None:  # the default level exists; a level asked for may not
        check_level(graph, GENERAL, level)
    trace = Trace(method="local", level=level)
    q = settings.query
    with timed(trace.seconds, "retrieve"):
        seeding = await seed(graph, llm, settings, query.question, trace)
        trace.seeding = seeding
        if seeding is None:
            return Answer(answer=no_answer_for(settings, trace, "no entity matches the "
                                               "question"), trace=trace)
        ctx = build_context(graph, settings, query.question, seeding, level,
                            q.reduce_context_tokens,
                            text_unit_prop=q.local_text_unit_prop,
                            community_prop=q.local_community_prop)
    trace.reports_retrieved, trace.text_units_retrieved = ctx.reports, ctx.units
    if ctx.withheld:
        trace.note(WITHHELD_NOTE.format(n=ctx.withheld))
    events.emit("retrieved", entities=ctx.entities, reports=ctx.reports, text_units=ctx.units,
                method="local", level=level)
    text = await answer_from(llm, settings, query, ctx.text, trace)
    text, cited = cited_sources(text, ctx.valid, trace)
    return Answer(answer=text, citations=cited, trace=trace)


def seeding_lines(answer: Answer) -> list[str]:
    """Local search's seeding as `ask` prints it, after the report side's counts."""
    s = answer.trace.seeding
    return report_lines(answer) + ([f"entities seeded by {s.by}: "
                                    f"{', '.join(s.entities[:5]) or '-'}"] if s else [])


LOCAL = Method(
    "local", ask_local, "local search: entities nearest the question by embedding (string "
    "match without embeddings), their relationships, claims, reports and text units",
    settings=("level", "local_top_k_entities", "local_top_k_relationships",
              "local_text_unit_prop", "local_community_prop", "reduce_context_tokens"),
    trace_part="seeding", render=seeding_lines, rank=3)
