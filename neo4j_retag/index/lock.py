"""Indexing functions under the database's lock (:mod:`neo4j_retag.db.lock`)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..db import Graph
from ..db.lock import index_lock

T = TypeVar("T")


def holding_index_lock(what: str) -> Callable[[Callable[..., Awaitable[T]]],
                                              Callable[..., Awaitable[T]]]:
    """Decorate an async indexing function taking a ``Graph`` argument: it runs under the
    database's index lock (InputError when another run holds it)."""

    def deco(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> T:
            graph = next((a for a in (*args, *kwargs.values()) if isinstance(a, Graph)), None)
            if graph is None:  # a stand-in graph (unit tests): nothing to lock
                return await fn(*args, **kwargs)
            with index_lock(graph, what):
                return await fn(*args, **kwargs)

        return wrapper

    return deco


__all__ = ["holding_index_lock"]
