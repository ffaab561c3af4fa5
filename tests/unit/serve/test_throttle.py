"""Key checks throttled per client and across clients (a clock the test moves): past FREE
failures a client's next check waits, doubling; past GLOBAL_FREE failures from everyone
checks are spaced; a check that must wait is not made at all (a guess sent early learns
nothing); a client whose key was right is spared the global spacing, never its own."""

import pytest

from neo4j_retag.serve import throttle as t
from neo4j_retag.serve.throttle import Throttle, Throttled


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def wrong() -> bool:
    return False


def test_one_client_waits_doubling_and_an_early_guess_is_not_checked():
    clock = Clock()
    th = Throttle(clock)
    for _ in range(t.FREE):
        assert th.check("10.0.0.9", wrong) is False
    checked = []
    for _ in range(30):  # parallel guesses: none of them is checked
        with pytest.raises(Throttled, match="from this client") as err:
            th.check("10.0.0.9", lambda: checked.append(1) or True)
    assert not checked and err.value.retry_after == 1 and th.refused == 30
    clock.now += 1.0
    assert th.check("10.0.0.9", wrong) is False  # checked again after 1 s, wrong again
    clock.now += 1.5
    with pytest.raises(Throttled) as err:  # now 2 s
        th.check("10.0.0.9", wrong)
    assert err.value.retry_after == 1
    clock.now += 0.5
    assert th.check("10.0.0.9", lambda: True) is True  # the right key resets the count
    for _ in range(t.FREE):
        th.check("10.0.0.9", wrong)
    assert th.check("10.0.0.7", lambda: True)  # another client is not held up
    clock.now += t.FORGET + 1  # long quiet: forgotten
    assert th.check("10.0.0.9", wrong) is False


def test_many_clients_together_are_spaced_and_trusted_clients_are_not():
    clock = Clock()
    th = Throttle(clock)
    assert th.check("192.0.2.200", lambda: True)  # a user who logged in earlier
    for i in range(t.GLOBAL_FREE):  # one guess each from many addresses
        assert th.check(f"198.51.100.{i}", wrong) is False
        clock.now += 0.01
    with pytest.raises(Throttled, match="from all clients"):
        th.check("203.0.113.5", lambda: True)  # even a right key waits: not checked
    assert th.check("192.0.2.200", lambda: True)  # the trusted user goes on
    clock.now += t.GLOBAL_INTERVAL
    assert th.check("203.0.113.6", wrong) is False  # one check per interval
    with pytest.raises(Throttled):
        th.check("203.0.113.7", wrong)
    clock.now += t.GLOBAL_WINDOW + 1  # the window passed: no spacing
    for i in range(3):
        assert th.check(f"203.0.113.{10 + i}", wrong) is False


def test_clients_remembered_are_bounded(monkeypatch):
    monkeypatch.setattr(t, "MAX_CLIENTS", 50)
    th = Throttle(Clock())
    for i in range(200):
        th.check(f"2001:db8::{i:x}", lambda: True)
    assert len(th._clients) == 50
