"""Indexing functions under the database's lock (:mod:`neo4j_retag.db.lock`), with the GDS
settings checked first."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..config import Settings
from ..db import Graph
from ..db.lock import index_lock
from .gds import sessions_requirements

T = TypeVar("T")


def holding_index_lock(what: str) -> Callable[[Callable[..., Awaitable[T]]],
                                              Callable[..., Awaitable[T]]]:
    """Decorate an async indexing function taking a ``Graph`` argument: it runs under the
    database's index lock (InputError when another run holds it), after the GDS settings are
    checked (a missing GDS_MODE=sessions setting is a ConfigError before any LLM call)."""

    def deco(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> T:
            graph = next((a for a in (*args, *kwargs.values()) if isinstance(a, Graph)), None)
            if graph is None:  # a stand-in graph (unit tests): nothing to lock
                return await fn(*args, **kwargs)
            settings = next((a for a in (*args, *kwargs.values()) if isinstance(a, Settings)),
                            graph.settings)
            if settings.gds.mode == "sessions":
                sessions_requirements(settings)
            with index_lock(graph, what):
                return await fn(*args, **kwargs)

        return wrapper

    return deco


__all__ = ["holding_index_lock"]
