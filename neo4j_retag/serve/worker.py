"""The questions' own event loop, on a thread of its own. A question's pipeline does blocking
work between its LLM calls (synchronous Neo4j queries, prompt building, token counts); on the
loop that answers HTTP it would hold up every other client (/health, the page, MCP). Here it
holds up only other questions' steps, and the server's loop stays free."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Worker:
    """``await worker.run(coro)`` runs ``coro`` on the worker's loop; cancelling the caller
    cancels it there (a client that leaves stops its question's LLM calls). Context variables
    (an events listener) travel with it."""

    def __init__(self, name: str = "retag-questions") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if not self._thread.is_alive():  # not started (a unit test): the caller's loop
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
        if not self.loop.is_running():
            self.loop.close()
