"""A lost connection (refused, reset, an idle drop, a leader switch, a commit whose answer was
lost) is tried again for the window with progress lines; anything else is raised at once; a
server that stays away past the window raises the last error (the caller's one line)."""

from __future__ import annotations

import logging

import pytest
from neo4j._exceptions import SocketDeadlineExceededError
from neo4j.exceptions import (
    ClientError,
    ConnectionAcquisitionTimeoutError,
    IncompleteCommit,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from neo4j_retag.db.retry import lost, retrying


def _neo4j(cls, code: str, message: str = "x"):
    return cls._hydrate_neo4j(code=code, message=message)


class Clock:
    """A fake monotonic clock that ``sleep`` moves on."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


def _failing(errors: list[BaseException], clock: Clock, cost: float = 0.0):
    calls = []

    def call():
        calls.append(clock.now)
        clock.now += cost  # a try that waits (a connect timeout) before it fails
        if errors:
            raise errors.pop(0)
        return "rows"
    return call, calls


@pytest.mark.parametrize("err", [
    ServiceUnavailable("Couldn't connect to localhost:7687"),
    SessionExpired("Failed to read from defunct connection"),
    IncompleteCommit("Failed to read from defunct connection during commit"),
    ConnectionResetError(104, "Connection reset by peer"),
    _neo4j(TransientError, "Neo.TransientError.General.DatabaseUnavailable"),
    _neo4j(ClientError, "Neo.ClientError.Cluster.NotALeader"),
    _neo4j(TransientError, "Neo.TransientError.Transaction.DeadlockDetected"),
])
def test_a_lost_connection_is_tried_again_until_it_works(err, caplog):
    clock = Clock()
    call, calls = _failing([err, err, err], clock)
    with caplog.at_level(logging.INFO):
        assert retrying(call, what="index/merge_entities", window=60, uri="bolt://h:1",
                        sleep=clock.sleep, clock=clock) == "rows"
    assert len(calls) == 4 and clock.slept == [0.5, 1.0, 2.0]
    assert lost(err)


def test_progress_lines_while_it_waits_and_when_it_is_back(caplog):
    clock = Clock()
    call, calls = _failing([ServiceUnavailable("refused")] * 12, clock)
    with caplog.at_level(logging.WARNING, logger="neo4j_retag.db"):
        retrying(call, what="index/merge_entities", window=60, uri="bolt://h:1",
                 sleep=clock.sleep, clock=clock)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == ("Neo4j at bolt://h:1: connection lost during index/merge_entities "
                        "(ServiceUnavailable: refused); trying again for up to 60 s "
                        "(NEO4J_RETRY_SECONDS)")
    assert any(ln.startswith("Neo4j at bolt://h:1 still unreachable after ") for ln in lines)
    assert lines[-1].startswith("Neo4j at bolt://h:1 back after ")
    assert "index/merge_entities went through" in lines[-1]
    assert len(lines) <= 2 + (clock.now - 100) / 10 + 1  # a line every 10 s, not every try


def test_past_the_window_the_last_error_is_raised():
    clock = Clock()
    errors = [ServiceUnavailable(f"refused {i}") for i in range(100)]
    call, calls = _failing(errors, clock, cost=1.0)
    with pytest.raises(ServiceUnavailable, match="refused"):
        retrying(call, what="q", window=20, uri="bolt://h:1", sleep=clock.sleep, clock=clock)
    # the window counts from the first failure; the last sleep is cut to end at the window
    assert 120 <= clock.now <= 122 and len(calls) < 30


@pytest.mark.parametrize("err", [
    _neo4j(ClientError, "Neo.ClientError.Statement.SyntaxError"),
    _neo4j(TransientError, "Neo.TransientError.Transaction.Terminated"),
    ValueError("a bug"),
])
def test_anything_else_is_raised_at_once(err):
    clock = Clock()
    call, calls = _failing([err], clock)
    with pytest.raises(type(err)):
        retrying(call, what="q", window=60, uri="bolt://h:1", sleep=clock.sleep, clock=clock)
    assert len(calls) == 1 and not lost(err)


def test_once_a_window_is_spent_later_calls_fail_at_once():
    """A CLI run whose server stayed away ends after one window, not one per call to come
    (the failed text units' marks, the usage record ...)."""
    from neo4j_retag.config import Settings
    from neo4j_retag.db import Graph
    from neo4j_retag.errors import DatabaseUnreachable

    class Driver:
        sessions = 0

        def session(self, **_):
            Driver.sessions += 1
            raise ServiceUnavailable("Couldn't connect to 127.0.0.1:1")

    g = Graph.__new__(Graph)  # no server: the driver is a stand-in
    g.settings, g.database, g.breaker, g.query_timeout = Settings(), "neo4j", None, None
    g.retry_window, g.gone, g.driver = 0.3, None, Driver()
    with pytest.raises(DatabaseUnreachable, match="unreachable$"):
        g.run("ops/stats")
    tries = Driver.sessions
    assert tries >= 2  # tried again within the window
    with pytest.raises(DatabaseUnreachable, match=r"gone for 0.3 s \(NEO4J_RETRY_SECONDS\)"):
        g.run("ops/stats")
    assert Driver.sessions == tries


def test_a_read_over_the_memory_is_read_in_halves():
    from neo4j_retag.config import Settings
    from neo4j_retag.db import Graph, TransactionTooLarge

    g = Graph.__new__(Graph)
    g.settings = Settings()
    asked = []

    def run(name, **params):  # more than 2 ids at once is over the memory; id 7 alone too
        ids = params["ids"]
        asked.append(ids)
        if len(ids) > 2 or ids == [7]:
            raise TransactionTooLarge(f"the statement {name} is over ...")
        return [{"id": i} for i in ids]
    g.run = run
    assert [r["id"] for r in g.run_paged("index/community_elements", "ids", [1, 2, 3, 4, 5])
            ] == [1, 2, 3, 4, 5]
    assert asked == [[1, 2, 3, 4, 5], [1, 2], [3, 4, 5], [3], [4, 5]]  # halves until it fits
    with pytest.raises(TransactionTooLarge):
        g.run_paged("index/community_elements", "ids", [7, 8, 9])


def test_a_dead_pooled_connection_is_one_warning_and_the_next_try_opens_another(caplog):
    """The liveness check of a connection the network dropped spends the acquisition deadline
    (NEO4J_CONNECT_TIMEOUT): the driver logs the read past its deadline as an ERROR, then the
    acquisition fails. One warning says it; the acquisition is tried again, quietly."""
    clock = Clock()
    call, calls = _failing([ConnectionAcquisitionTimeoutError(
        "failed to obtain a connection from the pool within 5s (timeout)")], clock, cost=5.0)
    with caplog.at_level(logging.INFO):
        logging.getLogger("neo4j.io").error(
            "[#%04X]  _: <CONNECTION> error: %s: %r", 0xB40A,
            "Failed to read from defunct connection IPv4Address(('127.0.0.1', 40957)) "
            "(ResolvedIPv4Address(('127.0.0.1', 40957)))",
            SocketDeadlineExceededError("read timed out"))
        assert retrying(call, what="index/merge_entities", window=60, uri="bolt://h:1",
                        sleep=clock.sleep, clock=clock) == "rows"
    assert len(calls) == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == ["Neo4j at 127.0.0.1:40957: a connection did not answer within "
                        "NEO4J_CONNECT_TIMEOUT (dropped by the network while idle?): "
                        "replaced by a new one"]
    assert lost(ConnectionAcquisitionTimeoutError("x"))


def test_the_driver_checks_idle_connections_with_a_bounded_deadline():
    from neo4j_retag.config import Settings
    from neo4j_retag.db.pool import driver_options
    s = Settings()
    cli, serve = driver_options(s, fail_fast=False), driver_options(s, fail_fast=True)
    assert cli["liveness_check_timeout"] == 1.0 and cli["max_connection_lifetime"] == 300.0
    assert cli["connection_acquisition_timeout"] == cli["connection_timeout"] == 5.0
    assert (serve["connection_acquisition_timeout"], serve["connection_timeout"]) == (3.0, 2.0)
    slow = Settings(neo4j_connect_timeout=20, neo4j_liveness_check=0)
    assert driver_options(slow, False)["connection_acquisition_timeout"] == 20
    assert driver_options(slow, False)["liveness_check_timeout"] == 0
