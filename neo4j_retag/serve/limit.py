"""One limit on LLM calls shared by the questions' loops (:mod:`.worker`): an
``asyncio.Semaphore`` belongs to one loop, and a limit per loop would allow LLM_CONCURRENCY
calls per question loop instead of LLM_CONCURRENCY in all."""

from __future__ import annotations

import asyncio
import threading
from collections import deque


class SharedLimit:
    """``async with limit:`` - at most ``n`` holders across event loops on any threads;
    waiters are served first come, first served. A waiter that is cancelled gives up its place
    (or the slot it was just handed)."""

    def __init__(self, n: int) -> None:
        self._lock = threading.Lock()
        self.limit = self._free = n
        self.peak = 0  # the most holders at once so far (/stats)
        self._waiting: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._free > 0 and not self._waiting:
                self._free -= 1
                self.peak = max(self.peak, self.limit - self._free)
                return
            fut: asyncio.Future[None] = loop.create_future()
            self._waiting.append((loop, fut))
        try:
            await fut
        except asyncio.CancelledError:
            with self._lock:
                if (loop, fut) in self._waiting:
                    self._waiting.remove((loop, fut))
                    raise
            if fut.done() and not fut.cancelled():
                self.release()  # handed the slot just before the cancel: pass it on
            # else _hand_over, already scheduled, finds the future cancelled and passes it on
            raise

    def release(self) -> None:
        with self._lock:
            while self._waiting:
                loop, fut = self._waiting.popleft()
                try:
                    loop.call_soon_threadsafe(self._hand_over, fut)
                    return
                except RuntimeError:  # that loop is closed (the server stopping)
                    continue
            self._free += 1

    def _hand_over(self, fut: asyncio.Future[None]) -> None:
        if fut.cancelled():
            self.release()
        else:
            fut.set_result(None)

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()
