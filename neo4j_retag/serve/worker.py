"""The questions' own event loops, each on a thread of its own. A question's pipeline does
blocking work between its LLM calls (synchronous Neo4j queries, prompt building, token
counts): on the loop that answers HTTP it would hold up every other client (/health, the
page, MCP), and on one shared loop every other question - a Neo4j that stopped answering
would stall them all for as long as one query waits. So there are as many loops as
questions may run at once (the service's question slots), and a question goes to the least
busy one."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Worker:
    """``await worker.run(coro)`` runs ``coro`` on the least busy of ``loops`` loops;
    cancelling the caller cancels it there (a client that leaves stops its question's LLM
    calls). Context variables (an events listener) travel with it. Call :meth:`run` from one
    loop only (the server's): it counts the questions on each loop without a lock."""

    def __init__(self, loops: int = 1, name: str = "retag-questions") -> None:
        self.loops = [asyncio.new_event_loop() for _ in range(max(1, loops))]
        self._threads = [threading.Thread(target=self._serve, args=(loop,), daemon=True,
                                          name=f"{name}-{i}")
                         for i, loop in enumerate(self.loops)]
        self._busy = [0] * len(self.loops)

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _serve(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.run_forever()

    @property
    def started(self) -> bool:
        return self._threads[0].is_alive()

    def index(self) -> int:
        """Which of the loops the caller runs on (0 when not on one of them)."""
        try:
            return self.loops.index(asyncio.get_running_loop())
        except ValueError:
            return 0

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if not self.started:  # not started (a unit test): the caller's loop
            return await coro
        i = min(range(len(self.loops)), key=self._busy.__getitem__)
        self._busy[i] += 1
        try:
            return await self._on(i, coro)
        finally:
            self._busy[i] -= 1

    async def each(self, make: Callable[[int], Coroutine[Any, Any, Any]]) -> None:
        """``make(i)`` on loop ``i``, for every loop (closing what each loop holds)."""
        if not self.started:
            for i in range(len(self.loops)):
                await make(i)
            return
        await asyncio.gather(*(self._on(i, make(i)) for i in range(len(self.loops))))

    async def _on(self, i: int, coro: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loops[i]))

    def stop(self) -> None:
        """Cancel what still runs on the loops (letting it end, up to 5 s), then stop them."""
        for loop, thread in zip(self.loops, self._threads, strict=True):
            if thread.is_alive():
                with contextlib.suppress(Exception):  # what it ended with is not ours to raise
                    asyncio.run_coroutine_threadsafe(cancel_others(), loop).result(5)
                loop.call_soon_threadsafe(loop.stop)
                thread.join(10)
            if not loop.is_running():
                loop.close()


async def cancel_others() -> None:
    """Cancel every other task of the running loop and wait for them to end."""
    me = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks() if t is not me]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
