"""The breaker of a `serve` driver: a server gone fails the call with its reason and then
every call at once; after the hold one call tries again (the others still fail at once), and
an answer of the server - even an error of the query's own - closes it."""

from __future__ import annotations

import threading
import time

import pytest
from neo4j.exceptions import ClientError, ServiceUnavailable

from neo4j_retag.db.breaker import Breaker, reachable
from neo4j_retag.errors import DatabaseUnreachable

URI = "bolt://127.0.0.1:1"


def _gone() -> None:
    with reachable(URI, breaker):
        raise ServiceUnavailable("Couldn't connect to 127.0.0.1:1")


breaker = Breaker(0.3)


@pytest.fixture(autouse=True)
def closed():
    breaker.close()


def test_a_server_gone_trips_it_and_later_calls_fail_at_once():
    with pytest.raises(DatabaseUnreachable, match=r"unreachable \(ServiceUnavailable: Couldn"):
        _gone()
    ran = []
    with pytest.raises(DatabaseUnreachable, match=r"s ago; tried again every 0.3 s"), \
            reachable(URI, breaker):
        ran.append(1)
    assert not ran, "the call ran while the breaker was open"
    assert breaker.down is not None and "ServiceUnavailable" in breaker.down


def test_after_the_hold_one_call_tries_again_and_success_closes_it():
    with pytest.raises(DatabaseUnreachable):
        _gone()
    time.sleep(0.35)
    inside, release = threading.Event(), threading.Event()

    def probe() -> None:
        with reachable(URI, breaker):
            inside.set()
            release.wait(5)

    t = threading.Thread(target=probe)
    t.start()
    assert inside.wait(5)
    # one try at a time: the rest fail fast
    with pytest.raises(DatabaseUnreachable), reachable(URI, breaker):
        pass
    release.set()
    t.join(5)
    assert breaker.down is None
    with reachable(URI, breaker):
        pass


def test_a_query_error_is_an_answer_and_no_breaker_means_the_plain_message():
    with pytest.raises(DatabaseUnreachable):
        _gone()
    breaker.close()
    with pytest.raises(ClientError), reachable(URI, breaker):
        raise ClientError("bad Cypher")
    assert breaker.down is None
    with pytest.raises(DatabaseUnreachable, match=rf"^Neo4j at {URI} unreachable$"), \
            reachable(URI, None):
        raise ServiceUnavailable("gone")


def test_the_reason_is_one_line_whatever_the_driver_wrote():
    with pytest.raises(DatabaseUnreachable) as err, reachable(URI, breaker):
        raise ServiceUnavailable("Couldn't connect to 127.0.0.1:1 (resolved to ()):\n"
                                 "Failed to establish connection\n  Connection refused")
    assert "\n" not in str(err.value) and "Failed to establish connection" in str(err.value)
    assert breaker.down is not None and "\n" not in breaker.down
