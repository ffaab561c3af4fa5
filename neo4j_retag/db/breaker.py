"""Fail fast while Neo4j is down, for a long-lived process (`serve`): once a call finds the
server gone, every call fails at once for ``hold`` seconds instead of each spending the
driver's retries; then one call tries again (the others still fail at once) and any answer
from the server closes the breaker. Thread-safe: questions query from several threads."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    DatabaseUnavailable,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from ..errors import DatabaseUnreachable


class Breaker:
    """``with breaker.call(uri):`` around one database call; :meth:`trip` when the call found
    the server gone, :meth:`close` when the server answered (a /health check does both)."""

    def __init__(self, hold: float) -> None:
        self.hold = hold  # seconds between tries while the server is down
        self._lock = threading.Lock()
        self._down: tuple[float, str] | None = None  # (monotonic time of the failure, reason)
        self._probing = False

    @property
    def down(self) -> str | None:
        """Why the last call failed, while the breaker is open; None when closed."""
        with self._lock:
            return self._down[1] if self._down else None

    @contextmanager
    def call(self, uri: str) -> Iterator[None]:
        """Raises DatabaseUnreachable at once (naming the failure and its age) while open,
        except for the one call let through every ``hold`` seconds to try again."""
        with self._lock:
            probe = False
            if self._down is not None:
                since, reason = self._down
                age = time.monotonic() - since
                if age < self.hold or self._probing:
                    raise DatabaseUnreachable(
                        f"Neo4j at {uri} unreachable ({reason}, {age:.1f} s ago; tried again "
                        f"every {self.hold:g} s)")
                self._probing = probe = True
        try:
            yield
        finally:
            if probe:
                with self._lock:
                    self._probing = False

    def trip(self, reason: str) -> None:
        with self._lock:
            self._down = (time.monotonic(), reason)

    def close(self) -> None:
        with self._lock:
            self._down = None


def one_line(err: BaseException) -> str:
    """``err`` as the reason in a one-line message: its class and the start of its text, the
    driver's line breaks folded into spaces."""
    return f"{type(err).__name__}: {' '.join(str(err).split())[:120]}"


# DatabaseUnavailable: a server shutting down answers so until it is gone; OSError: a socket
# error the driver did not wrap; ConnectionAcquisitionTimeoutError: no working connection
# within NEO4J_CONNECT_TIMEOUT
UNREACHABLE = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, OSError,
               ConnectionAcquisitionTimeoutError)


@contextmanager
def reachable(uri: str, breaker: Breaker | None) -> Iterator[None]:
    """Around one database call: a server gone (after the driver's retries) is one
    DatabaseUnreachable naming ``uri``; with a ``breaker``, it trips it (and names the driver's
    error), and any answer of the server closes it."""
    if breaker is None:
        try:
            yield
        except UNREACHABLE as err:
            raise DatabaseUnreachable(f"Neo4j at {uri} unreachable") from err
        return
    with breaker.call(uri):
        try:
            yield
        except UNREACHABLE as err:
            reason = one_line(err)
            breaker.trip(reason)
            raise DatabaseUnreachable(f"Neo4j at {uri} unreachable ({reason})") from err
        except Neo4jError:
            breaker.close()  # it answered, with an error of the query's own
            raise
        breaker.close()
