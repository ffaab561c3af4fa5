"""`global-quoted`: GraphRAG global search's reading - every community report of a level -
answered by quoting the sentences of the sources the reports rest on (query/answer's quote: no
answer call, nothing written). ``cover`` (GLOBAL_QUOTED_COVER, ``--cover/--no-cover``) fills
what the question's words leave of the quote in turns over the reports, each giving its next
sentence: a question about the whole corpus ("the main themes?") shares no word with the
sources, and is then answered by what the reports say first. Without it only the sentences
sharing a word with the question are quoted; when none does, map-reduce answers, with a note.
"""

from __future__ import annotations

from ..config import Group, Settings, env
from ..db import Graph
from ..llm import LLM
from ..model import GENERAL, Answer, Query, Trace
from .answer import MAP_REDUCE, ONE_CALL, QUOTE, Context, respond
from .common import reports_at_level
from .contract import Method, Options, option
from .retrieval import note_stale, query_level


class GlobalQuotedSettings(Group):
    """Global search quoted (`--method global-quoted`)."""

    cover: bool = env(
        "GLOBAL_QUOTED_COVER", True, "after the sentences that share a word with the question, "
        "the quote is filled in turns over the level's reports, each giving its next sentence "
        "(a question about the whole corpus); `false`: only the sentences sharing a word with "
        "the question (none: map-reduce answers, with a trace note)")


class GlobalQuotedOptions(Options):
    cover: bool | None = option("fill the quote in turns over the reports (default "
                                "GLOBAL_QUOTED_COVER)")


async def ask_global_quoted(graph: Graph, llm: LLM, settings: Settings,
                            query: Query) -> Answer:
    """Every report of the level, quoted (module docstring). Raises LevelError when the level
    has no reports."""
    level = query_level(graph, settings, query.level)
    reports = reports_at_level(graph, GENERAL, level)
    trace = Trace(method="global-quoted", level=level)
    note_stale(graph, GENERAL, trace)
    cover = GlobalQuotedOptions.of(query).cover
    if cover is None:
        cover = settings.method(GlobalQuotedSettings).cover
    return await respond(graph, llm, settings, query, Context(reports=reports, cover=cover),
                         trace, GLOBAL_QUOTED_ANSWERS)


GLOBAL_QUOTED_ANSWERS = (QUOTE, MAP_REDUCE, ONE_CALL)
GLOBAL_QUOTED = Method(
    "global-quoted", ask_global_quoted, "global search's reports of a level, the answer quoted "
    "from the sources' sentences they rest on (no answer call; --no-cover: only the sentences "
    "sharing a word with the question)", options=GlobalQuotedOptions,
    settings=GlobalQuotedSettings, needs_reports=True, rank=2, answers=GLOBAL_QUOTED_ANSWERS)
