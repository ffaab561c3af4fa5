"""Local search (Edge et al. 2024's local mode, a §3.2 comparison condition), as Microsoft
GraphRAG does it: entities seeded by the embedding similarity of the question to their
descriptions (string match as the fallback without embeddings, with a trace note), then their
relationships, claims, community reports and the text units that mention them within one
context budget (``query/local_context.py``), answered in one call citing reports and text
units (``local-quoted``: the sources' sentences quoted instead, query/answer)."""

from __future__ import annotations

from .. import events
from ..config import Settings
from ..db import Graph
from ..llm import LLM
from ..model import GENERAL, Answer, Query, Trace, timed
from .answer import ONE_CALL, QUOTE, Context, respond
from .common import no_answer_for
from .contract import Method, report_lines, variant
from .local_context import WITHHELD_NOTE, LocalSettings, build_context, seed
from .retrieval import check_level, query_level


async def ask_local(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """Local search at ``query.level``; cites reports and text units. ``trace.seeding`` says
    how the entities were found (embedding or full_text) and which, best first. Raises
    LevelError for a ``query.level`` the graph has no reports at."""
    level = query_level(graph, settings, query.level)
    if query.level is not None:  # the default level exists; a level asked for may not
        check_level(graph, GENERAL, level)
    trace = Trace(method="local", level=level)
    own = settings.method(LocalSettings)
    with timed(trace.seconds, "retrieve"):
        seeding = await seed(graph, llm, settings, query.question, trace)
        trace.seeding = seeding
        if seeding is None:
            return Answer(answer=no_answer_for(settings, trace, "no entity matches the "
                                               "question"), trace=trace)
        ctx = build_context(graph, settings, query.question, seeding, level,
                            settings.query.reduce_context_tokens,
                            text_unit_prop=own.text_unit_prop,
                            community_prop=own.community_prop)
    trace.reports_retrieved, trace.text_units_retrieved = ctx.reports, ctx.units
    if ctx.withheld:
        trace.note(WITHHELD_NOTE.format(n=ctx.withheld))
    events.emit("retrieved", entities=ctx.entities, reports=ctx.reports, text_units=ctx.units,
                method="local", level=level)
    # everything read is listed, cited or not (the answer may cite nothing)
    return await respond(graph, llm, settings, query, Context(
        text=ctx.text, valid=ctx.valid, sources=list(ctx.valid.values()),
        entities=ctx.shown_entities, units=ctx.unit_ids), trace, LOCAL_ANSWERS)


def seeding_lines(answer: Answer) -> list[str]:
    """Local search's seeding as `ask` prints it, after the report side's counts."""
    s = answer.trace.seeding
    return report_lines(answer) + ([f"entities seeded by {s.by}: "
                                    f"{', '.join(s.entities[:5]) or '-'}"] if s else [])


LOCAL_ANSWERS = (ONE_CALL, QUOTE)
LOCAL = Method(
    "local", ask_local, "local search: entities nearest the question by embedding (string "
    "match without embeddings), their relationships, claims, reports and text units",
    settings=LocalSettings, trace_part="seeding", render=seeding_lines, rank=3,
    answers=LOCAL_ANSWERS)
# the small model's specific questions: local search's context, its entities' evidence and
# text units' sentences quoted (no answer call: nothing written, nothing invented)
LOCAL_QUOTED = variant(
    LOCAL, "local-quoted", "local search's context quoted: the seeded entities' evidence "
    "sentences and their text units' sentences that share words with the question, cited "
    "with their pages; no answer call", module=__name__, rank=3, answer="quote")
