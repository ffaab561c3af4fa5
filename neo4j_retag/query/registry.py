"""The registry of query methods: every :class:`~.contract.Method` declared at module level in
a module of this package, by name, in rank order; ``auto`` answers through it. The settings
groups the methods declare (:data:`SETTINGS`) are what `neo4j-retag config` shows beside the
shared ones, and what :func:`check_settings` reads before a question is asked.

A new method is a module here declaring its ``Method``: nothing else lists it. Method modules
share helpers through ``common``, never through each other (auto reaches them through this
registry).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Iterator, Mapping

from ..config import Group, Settings
from ..db import Graph
from ..llm import LLM
from ..model import Answer, Query
from .auto import auto_method
from .contract import Method, MethodFn
from .lazy_reports import ensure_reports, is_lazy, needed_levels, note_built


def declared() -> dict[str, Method]:
    """Every method declared in a module of ``query``, by name, lowest rank first.
    Raises RuntimeError when two declarations share a name (a programming error)."""
    package = importlib.import_module(__package__)
    found: dict[str, Method] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{__package__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Method) and found.setdefault(value.name, value) is not value:
                raise RuntimeError(f"two query methods named {value.name!r}: "
                                   f"{found[value.name].module} and {value.module}")
    return dict(sorted(found.items(), key=lambda kv: (kv[1].rank, kv[0])))


METHODS: dict[str, Method] = declared()
# the methods' own settings groups, each once, in rank order
SETTINGS: tuple[type[Group], ...] = tuple(dict.fromkeys(
    m.settings for m in METHODS.values() if m.settings is not None))


def check_settings(settings: Settings) -> None:
    """Read every method's settings group: a value out of its bounds (``LAZY_BUDGET=0``) is a
    ConfigError naming the variable before any question is asked, whichever method asks."""
    for group in SETTINGS:
        settings.method(group)


async def run_method(method: str, graph: Graph, llm: LLM, settings: Settings,
                     query: Query) -> Answer:
    """One registered method; on a lazy index the reports it reads are built first (on
    demand, query/lazy_reports.py) and said in its trace."""
    m = METHODS[method]
    if not (m.needs_reports and is_lazy(graph)):
        return await m(graph, llm, settings, query)
    levels = needed_levels(graph, settings, query.level, m.report_levels)
    built = await ensure_reports(graph, llm, settings, levels)
    got = await m(graph, llm, settings, query)
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


# auto answers through the registry itself (method modules never import each other); the
# chosen method's options, trace part and render apply to its answer
METHODS["auto"] = Method("auto", auto_method(_Prepared()), "one classification call: a global "
                         "question -> retag (global without topics), a specific one -> local",
                         trace_part="routing", rank=90)
