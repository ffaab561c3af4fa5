"""Stage events of the question being answered, for a front end that shows them as they happen
(`serve`'s `/ask/stream`): ``classified``, ``topic``, ``retrieved``, ``map`` (batch k of n),
``reduce`` and the answer's ``token`` pieces.

A context variable carries the listener, so the query code emits without knowing who listens,
and tasks the question starts (the map batches) inherit it. Nothing listens in the CLI: then
:func:`emit` does nothing and the reduce step is not streamed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# listener(kind, data); a "token" event's data is {"text": piece}, or {"text": None} when the
# streamed reply was unusable and the answer starts over
Listener = Callable[[str, dict[str, Any]], None]

_listener: ContextVar[Listener | None] = ContextVar("neo4j_retag_events", default=None)


def emit(event: str, /, **data: Any) -> None:
    """Tell the listener of this question, if any, that ``event`` happened."""
    listener = _listener.get()
    if listener is not None:
        listener(event, data)


def current() -> Listener | None:
    """The listener of this question, if any (to pass on to another process)."""
    return _listener.get()


def token_sink() -> Callable[[str | None], None] | None:
    """Where the answer's pieces go as the LLM writes them, or None when nobody listens (the
    caller then asks for the whole reply at once)."""
    listener = _listener.get()
    if listener is None:
        return None
    return lambda text: listener("token", {"text": text})


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send the events of the code run inside (and of the tasks it starts) to ``listener``."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)
