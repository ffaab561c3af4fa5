"""What a query method declares: the one contract every surface is generated from.

A method module holds a module-level :class:`Method`: its ``--method`` name, a one-line help,
its own options (an :class:`~neo4j_retag.model.Options` model: typed, with bounds), its own
settings (a settings group declared beside it, read as ``settings.method(Group)``), the trace
part it fills and how the CLI prints it. ``query`` collects every such declaration in its
package (:data:`query.METHODS`); `ask`'s click options, the HTTP request model (and its
OpenAPI), the MCP ``ask`` tool, the page's method list, `eval --methods name@option=value` and
`neo4j-retag config` are built from that registry (``query.ask``, ``query.registry``).
A declared *variant* (:func:`variant`) is a method that runs another with some settings set,
under its own name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import create_model

from ..config import Group, Settings
from ..db import Graph
from ..llm import LLM
from ..model import Answer, Options, Query, option

__all__ = ["Method", "Options", "option", "report_lines", "variant"]

MethodFn = Callable[[Graph, LLM, Settings, Query], Awaitable[Answer]]
# the lines a method's trace part prints under `ask`'s answer (plain text, no markup)
Render = Callable[[Answer], list[str]]
# the levels whose reports a method reads, of those the graph has (a lazy index builds them)
Levels = Callable[[Settings, list[int]], list[int]]


def report_lines(answer: Answer) -> list[str]:
    """The map-reduce part of the trace as `ask` prints it (every method over reports or
    text units summarised by map-reduce)."""
    tr = answer.trace
    units = f" | text units {tr.text_units_retrieved}" if tr.text_units_retrieved else ""
    return [f"method {tr.method} | topic {tr.topic} | scope {tr.scope} | level {tr.level} | "
            f"keywords {', '.join(tr.keywords) or '-'}"
            + (f" | retrieval {tr.retrieval}" if tr.retrieval else ""),
            f"reports retrieved {tr.reports_retrieved}{units} | map batches {tr.map_batches} "
            f"(parse failures {tr.map_parse_failures}) | points {tr.points_total}, zero "
            f"{tr.points_zero}, in reduce {tr.points_in_reduce} | cited "
            f"{[c.id for c in answer.citations]} | chatter stripped {tr.chatter_stripped}"
            + (f" | sentences dropped {len(tr.sentences_dropped)} (a copy about another "
               "subject)" if tr.sentences_dropped else "")]


@dataclass(frozen=True)
class Method:
    """A query method's whole contract (see the module docstring).

    ``run`` answers; ``options`` its own `ask` options (an ``Options`` model declared beside
    it: ``XOptions.of(query)``); ``settings`` its own settings group (declared beside it:
    ``settings.method(XSettings)``; what the methods share is ``settings.query``);
    ``trace_part`` the ``Trace`` field it fills (None: the map-reduce counts only) and
    ``render`` its lines under the answer; ``answers`` the answerers its retrieved context can
    feed, its own first (``ANSWER``, ``--answer``: query/answer); ``refinable`` when KGiRAG
    refinement applies (its answers cite reports of one scope and level); ``needs_reports``
    when it reads a level's reports (a lazy index builds them on demand), ``report_levels``
    which (default: the query level); ``flag`` a boolean option that turns ``flag_of`` into
    this method (``--dynamic`` with ``--method global``); ``rank`` orders the listings (lowest
    first)."""

    name: str
    run: MethodFn
    help: str
    options: type[Options] = Options
    settings: type[Group] | None = None
    trace_part: str | None = None
    render: Render = report_lines
    refinable: bool = False
    needs_reports: bool = False
    report_levels: Levels | None = None
    flag: str | None = None
    flag_of: str | None = None
    rank: int = 100
    # the answerers its context feeds (query/answer: quote, one-call, map-reduce), its own
    # first; none: it answers its own way (lazy, DRIFT)
    answers: tuple[str, ...] = ()
    module: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.module:  # the declaring module (a variant runs another module's run)
            object.__setattr__(self, "module", getattr(self.run, "__module__", ""))

    async def __call__(self, graph: Graph, llm: LLM, settings: Settings,
                       query: Query) -> Answer:
        return await self.run(graph, llm, settings, query)


def variant(base: Method, name: str, help: str, *, module: str, rank: int = 100,
            without: tuple[str, ...] = (), **settings: Any) -> Method:
    """``base`` run with these settings (flat names, as ``Settings(...)`` takes them: a shared
    one such as ``answer``, or one of ``base``'s own group such as ``top_p_share``), answering
    as ``name`` (its trace's method): a declared arm of a method, e.g. ReTAG without its topic
    layer. ``module`` is the declaring module's ``__name__``; ``without`` names options of
    ``base`` the arm does not take (given, they are noted and not passed)."""
    if unknown := set(without) - set(base.options.model_fields):
        raise RuntimeError(f"variant {name}: {base.name} has no option {sorted(unknown)}")

    async def run(graph: Graph, llm: LLM, s: Settings, query: Query) -> Answer:
        got = await base.run(graph, llm, s.model_copy(update=settings), query)
        got.trace.method = name
        return got

    options = base.options
    if without:
        kept = {n: (f.annotation, f) for n, f in options.model_fields.items() if n not in without}
        options = create_model(f"{options.__name__}Without", __base__=Options,
                               __module__=module, **kept)  # type: ignore[call-overload]
    return Method(name, run, help, options=options, settings=base.settings,
                  trace_part=base.trace_part, render=base.render, refinable=base.refinable,
                  needs_reports=base.needs_reports, report_levels=base.report_levels,
                  rank=rank, module=module, answers=base.answers)
