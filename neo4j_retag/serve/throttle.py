"""Guessing the API key is slowed per client and for all clients together. A wrong key is
answered at once (401), but past a few failures the next check waits: a client's own after
``FREE`` failures in a row (1 s, doubling per failure, at most ``MAX_WAIT``), and every
client's after ``GLOBAL_FREE`` failures within ``GLOBAL_WINDOW`` (one check per
``GLOBAL_INTERVAL`` from then on, so parallel guesses from many addresses are slowed too).
A check that must wait is not made: the request gets a 429 with Retry-After, so a guess sent
early learns nothing. A client whose key was right within ``TRUSTED`` seconds is spared the
global wait (an attack from elsewhere does not lock out the users), never its own.

Clients are told apart by address: behind a reverse proxy every client is the proxy's, and
the per-client wait becomes a global one (the proxy's own limits come first)."""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

FREE = 5  # failures in a row a client may make before its checks wait
BASE_WAIT = 1.0  # seconds after the first failure past FREE; doubled with each further one
MAX_WAIT = 300.0
FORGET = 900.0  # seconds without a failure after which a client starts afresh
GLOBAL_FREE = 20  # failures from all clients within GLOBAL_WINDOW before checks are spaced
GLOBAL_WINDOW = 60.0
GLOBAL_INTERVAL = 1.0  # seconds between two checks while spaced
TRUSTED = 12 * 3600.0  # a right key spares its client the global spacing this long
MAX_CLIENTS = 10_000  # clients remembered (the oldest forgotten first)


@dataclass
class _Client:
    failures: int = 0
    last_failure: float = 0.0
    trusted_until: float = 0.0


class Throttled(Exception):
    """A check that must wait: ``retry_after`` seconds, ``message`` the one line why."""

    def __init__(self, retry_after: float, message: str) -> None:
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))


class Throttle:
    """Key checks by client address. Single-threaded (the server's event loop): a check and
    its outcome are recorded in one step, so parallel guesses queue behind each other."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._clients: OrderedDict[str, _Client] = OrderedDict()
        self._recent: deque[float] = deque()  # failure times within GLOBAL_WINDOW
        self._global_next = 0.0  # no check before this while spaced
        self.refused = 0  # checks not made (429), for the log and tests

    def check(self, client: str, right: Callable[[], bool]) -> bool:
        """Make the check ``right()`` for ``client`` unless it must wait; record the outcome.
        Returns whether the key was right. Raises Throttled (the check was not made)."""
        now = self.clock()
        c = self._client(client, now)
        wait = c.last_failure + self._own_wait(c.failures) - now
        if wait > 0:
            self.refused += 1
            raise Throttled(wait, "too many wrong API keys from this client: retry in "
                            f"{max(1, math.ceil(wait))} s")
        while self._recent and self._recent[0] <= now - GLOBAL_WINDOW:
            self._recent.popleft()
        spaced = len(self._recent) >= GLOBAL_FREE and c.trusted_until <= now
        if spaced and (wait := self._global_next - now) > 0:
            self.refused += 1
            raise Throttled(wait, "too many wrong API keys from all clients: retry in "
                            f"{max(1, math.ceil(wait))} s")
        if right():
            c.failures, c.trusted_until = 0, now + TRUSTED
            return True
        c.failures, c.last_failure = c.failures + 1, now
        self._recent.append(now)
        if len(self._recent) >= GLOBAL_FREE:
            self._global_next = now + GLOBAL_INTERVAL
        return False

    @staticmethod
    def _own_wait(failures: int) -> float:
        if failures < FREE:
            return 0.0
        return min(MAX_WAIT, BASE_WAIT * 2 ** (failures - FREE))

    def _client(self, client: str, now: float) -> _Client:
        c = self._clients.pop(client, None) or _Client()
        if c.failures and now - c.last_failure > FORGET:
            c.failures = 0
        self._clients[client] = c  # the most recent last
        while len(self._clients) > MAX_CLIENTS:
            self._clients.popitem(last=False)
        return c
