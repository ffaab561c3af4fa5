"""At most N questions answered at once; the rest wait their turn, and past a queue limit a
new one is turned away (429 with Retry-After) instead of piling up behind a slow model."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

from ..errors import RetagError


class CallLimit(Protocol):
    """The LLM call limit questions share: its size and the most calls at once so far."""

    @property
    def limit(self) -> int: ...

    @property
    def peak(self) -> int: ...


class BusyError(RetagError):
    """Every slot is taken and the queue is full."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"busy: too many questions waiting; retry in {retry_after} s")
        self.retry_after = retry_after


class Gate:
    """``limit`` questions at once, ``queue_limit`` more waiting; ``calls``: the LLM call
    limit they share (its size and peak are shown beside the questions')."""

    def __init__(self, limit: int, queue_limit: int, calls: CallLimit | None = None) -> None:
        self.limit, self.queue_limit, self.calls = limit, queue_limit, calls
        self._sem = asyncio.Semaphore(limit)
        self.active = self.waiting = self.max_active = self.answered = self.refused = 0
        self._seconds = 0.0  # total seconds questions held a slot: Retry-After's estimate
        # counted from the server's loop; read by /stats and MCP from other threads
        self._lock = threading.Lock()

    def admit(self) -> None:
        """Count one more waiting question, or raise BusyError when the queue is full. Called
        before a response starts (a stream's status is sent before its first event)."""
        with self._lock:
            if self.active + self.waiting >= self.limit + self.queue_limit:
                self.refused += 1
                raise BusyError(self.retry_after())
            self.waiting += 1

    def retry_after(self) -> int:
        """Seconds until a queued question would likely get a slot: the mean answer time
        times the queue ahead per slot, at least 1."""
        mean = self._seconds / self.answered if self.answered else 5.0
        return max(1, round(mean * (1 + self.waiting / max(1, self.limit))))

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """A slot for an admitted question (see :meth:`admit`), held for the ``with`` body."""
        try:
            await self._sem.acquire()
        finally:
            with self._lock:
                self.waiting -= 1
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        t0 = asyncio.get_running_loop().time()
        try:
            yield
        finally:
            with self._lock:
                self.active -= 1
                self.answered += 1
                self._seconds += asyncio.get_running_loop().time() - t0
            self._sem.release()

    def as_dict(self) -> dict[str, Any]:
        return {"limit": self.limit, "queue_limit": self.queue_limit, "active": self.active,
                "waiting": self.waiting, "max_active": self.max_active,
                "answered": self.answered, "refused": self.refused,
                **({"llm_calls_limit": self.calls.limit, "llm_calls_max": self.calls.peak}
                   if self.calls else {})}
