"""Retry a Neo4j call through a lost connection: a reset, a refused connect, an idle
connection the network dropped, a leader switch, a commit whose answer never came.

The driver's managed transactions retry some of these, but not a commit whose answer was lost
(``IncompleteCommit``) and never with a line the user sees; our unmanaged transactions (needed
to see a transaction-memory error before the driver retries it) are not retried at all. So
each call of :class:`~neo4j_retag.db.Graph` runs through :func:`retrying`: one transaction per
try, tries for ``window`` seconds after the first loss, a progress line (a WARNING) at the
loss, every PROGRESS_EVERY seconds while it waits, and when the server is back.

Trying a write again is safe only when it is idempotent (every write file MERGEs on a key and
adds a text unit's evidence once; usage counters skip a write id they have seen): a commit
whose answer was lost may have gone through.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import TypeVar

from neo4j.exceptions import (
    ConnectionAcquisitionTimeoutError,
    DriverError,
    Neo4jError,
    SessionExpired,
)

from .breaker import one_line

log = logging.getLogger("neo4j_retag.db")  # the records the package's users know
T = TypeVar("T")
PROGRESS_EVERY = 10.0  # seconds between "still unreachable" lines
FIRST_DELAY, MAX_DELAY = 0.5, 2.0  # seconds between tries: doubling from FIRST to MAX


def lost(err: BaseException) -> bool:
    """True for a lost or refused connection (worth trying again on a new one): the driver's
    ServiceUnavailable (IncompleteCommit is one), SessionExpired, a bare OSError from the
    socket, no connection within the acquisition deadline (a pooled connection the network
    dropped spent it on its liveness check: the next try opens a new one), and Neo4j's
    retryable errors (a leader switch, a database restarting, a deadlock).
    """
    if isinstance(err, (SessionExpired, OSError, ConnectionAcquisitionTimeoutError)):
        return True
    if isinstance(err, (DriverError, Neo4jError)):
        # IncompleteCommit says not retryable: for an idempotent write it is (see module doc)
        return err.is_retryable() or type(err).__name__ == "IncompleteCommit"
    return False


def _connection(err: BaseException) -> bool:
    """A lost connection (a progress line) rather than a deadlock (the driver's usual retry,
    an INFO line) or a dead pooled connection (its own warning: :class:`_LostConnections`)."""
    if isinstance(err, ConnectionAcquisitionTimeoutError):
        return False
    return not isinstance(err, Neo4jError) or "Database" in type(err).__name__ \
        or "NotALeader" in str(getattr(err, "code", ""))


def retrying(call: Callable[[], T], *, what: str, window: float, uri: str,
             setting: str = "NEO4J_RETRY_SECONDS",
             sleep: Callable[[float], None] = time.sleep,
             clock: Callable[[], float] = time.monotonic) -> T:
    """``call()``, tried again while it fails with a :func:`lost` connection, for ``window``
    seconds after the first failure (the last error is raised then: the caller turns it into
    one line). ``what`` names the call (a Cypher file) in the progress lines; ``setting``
    names the window's setting."""
    first: float | None = None
    said = 0.0  # clock of the last progress line
    warned = False  # a warning said the loss: the return is said too
    delay = FIRST_DELAY
    while True:
        try:
            out = call()
        except Exception as err:
            if not lost(err):
                raise
            now = clock()
            if first is None:
                first = said = now
                if warned := _connection(err):
                    log.warning("Neo4j at %s: connection lost during %s (%s); trying again "
                                "for up to %g s (%s)", uri, what, one_line(err), window, setting)
                else:
                    log.info("Neo4j transient error during %s (%s): trying again", what,
                             one_line(err))
            if now - first >= window:
                raise
            if now - said >= PROGRESS_EVERY:
                said, warned = now, True
                log.warning("Neo4j at %s still unreachable after %.0f s of %g s (%s): "
                            "trying again", uri, now - first, window, setting)
            sleep(min(delay, max(0.0, first + window - now)))
            delay = min(delay * 2, MAX_DELAY)
            continue
        if warned and clock() - first >= 1.0:
            log.warning("Neo4j at %s back after %.0f s: %s went through", uri, clock() - first,
                        what)
        return out


class _TransientRetries(logging.Filter):
    """The driver retries transient errors (deadlocks between concurrent writers, a leader
    switch) and logs each retry as a WARNING holding the server's whole lock dump; we log one
    short INFO line instead (shown with --debug), and only a failure that outlasts the retries
    reaches the user."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "will be retried" not in str(record.msg):
            return True
        err = record.args[-1] if isinstance(record.args, tuple) and record.args else None
        code = str(getattr(err, "code", None) or type(err).__name__)
        log.info("Neo4j transient error %s: the driver retries the transaction",
                 code.rsplit(".", 1)[-1])
        return False


logging.getLogger("neo4j.session").addFilter(_TransientRetries())


class _LostConnections(logging.Filter):
    """A server that goes away makes the driver log each dead connection as an ERROR; the
    run's own error (DatabaseUnreachable, after the retries) says it once, so these are INFO
    lines (shown with --debug). A connection that let its deadline pass without a word (the
    liveness check of a pooled connection: the network dropped it while it was idle, as a NAT
    or firewall does) is said as a warning: nothing else would say it, and a network that
    keeps doing it is one to know about."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.ERROR or "defunct connection" not in record.getMessage():
            return True
        text = record.getMessage()
        if "SocketDeadlineExceeded" in text:
            where = re.search(r"Address\(\('([^']*)', (\d+)\)\)", text)
            log.warning("Neo4j at %s: a connection did not answer within "
                        "NEO4J_CONNECT_TIMEOUT (dropped by the network while idle?): replaced "
                        "by a new one", ":".join(where.groups()) if where else "the server")
        else:
            log.info("Neo4j connection lost: %s", text[:200])
        return False


for _name in ("neo4j.io", "neo4j.pool"):
    logging.getLogger(_name).addFilter(_LostConnections())


__all__ = ["lost", "retrying"]
