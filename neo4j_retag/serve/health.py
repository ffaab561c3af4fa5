"""`GET /health`: Neo4j and the LLM endpoint each checked with a short timeout, off the event
loop, the result kept for a moment (a probe every second costs the servers nothing) and one
check shared by the probes that arrive while it runs; a probe is answered with the last result
(at most STALE seconds old) while a new check runs, so it never waits on a slow endpoint.
``ok``, or ``degraded`` with reasons. Open without the key (a load balancer probes it), so
the reasons name no address."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import openai

from ..config import Settings
from ..db import Graph
from ..db.breaker import one_line
from .gate import Gate


class Served(Protocol):
    """What health reads of the service (serve.service.Service)."""

    settings: Settings
    graph: Graph | None
    gate: Gate
    allow_writes: bool

TIMEOUT = 1.5  # seconds each check may take before it counts as a failure
FRESH = 2.0  # seconds a result is reused as it is
STALE = 5.0  # seconds a result may be answered with while a new check runs


class Health:
    def __init__(self, service: Served) -> None:
        self.service = service
        # its own thread: a Neo4j that hangs holds this one, never the database calls' pool
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="retag-health")
        self._last: tuple[float, dict[str, Any]] | None = None
        self._running: asyncio.Task[None] | None = None
        self._client: openai.AsyncOpenAI | None = None  # its own: the questions' is on their loop

    async def report(self) -> dict[str, Any]:
        """``{"status": "ok" | "degraded", "neo4j": "ok" | reason, "llm": "ok" | reason,
        "writes": bool, "serve": the question gate}``."""
        now = time.monotonic()
        if self._last is None or now - self._last[0] > FRESH:
            if self._running is None or self._running.done():
                self._running = asyncio.create_task(self._check())
            if self._last is None or now - self._last[0] > STALE:
                await asyncio.shield(self._running)  # the first probe, or a stuck check
            # else answer with the last result at once; the check refreshes it meanwhile
        assert self._last is not None
        checks = self._last[1]
        status = "ok" if all(v == "ok" for v in checks.values()) else "degraded"
        return {"status": status, **checks, "writes": self.service.allow_writes,
                "serve": self.service.gate.as_dict()}

    async def _check(self) -> None:
        neo4j, llm = await asyncio.gather(self._neo4j(), self._llm())
        self._last = (time.monotonic(), {"neo4j": neo4j, "llm": llm})

    async def _neo4j(self) -> str:
        graph = self.service.graph
        if graph is None:
            return "not connected"
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(
                self._pool, graph.driver.verify_connectivity), TIMEOUT)
        except TimeoutError:
            return f"no answer within {TIMEOUT} s"  # slow is not down: the breaker stays
        except Exception as err:  # noqa: BLE001 - any failure is the reason shown
            if graph.breaker is not None:  # questions fail at once until the next try
                graph.breaker.trip(one_line(err))
            return f"unreachable ({type(err).__name__})"
        if graph.breaker is not None:
            graph.breaker.close()  # back: questions need not wait for their own next try
        return "ok"

    async def _llm(self) -> str:
        settings = self.service.settings.llm
        if self._client is None:
            self._client = openai.AsyncOpenAI(base_url=settings.endpoint, timeout=TIMEOUT,
                                              api_key=settings.api_key.get_secret_value(),
                                              max_retries=0)
        try:
            await self._client.models.list()
        except openai.APIStatusError:
            return "ok"  # it answered (an endpoint without /models is still up)
        except openai.APITimeoutError:
            return f"no answer within {TIMEOUT} s"
        except openai.OpenAIError as err:
            return f"unreachable ({type(err).__name__})"
        return "ok"

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
        self._pool.shutdown(wait=False, cancel_futures=True)
