"""What one `serve` process holds for its whole life: the settings, the Neo4j driver, the LLM
client (one connection pool, one LLM call limit, one response cache), the question gate and
the ingest jobs. Each question gets its own usage account, so its trace's cost is its own."""

from __future__ import annotations

import asyncio
import copy
import logging
import uuid
from pathlib import Path
from typing import Any

from ..config import Settings
from ..db import Graph
from ..errors import RetagError
from ..index.pipeline import run_ingest
from ..llm import LLM, Usage
from ..model import Answer
from ..ops.stats import record_usage
from .answer import AskRequest, answer_question
from .gate import Gate

log = logging.getLogger(__name__)


class Service:
    """Open with :meth:`start`, close with :meth:`stop` (the app's lifespan does both)."""

    def __init__(self, settings: Settings, *, allow_writes: bool = False) -> None:
        self.settings, self.allow_writes = settings, allow_writes
        self.gate = Gate(settings.llm.parallel, settings.api.queue_limit)
        self.graph: Graph | None = None
        self.llm: LLM | None = None
        self.jobs: dict[str, dict[str, Any]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        self.graph = Graph(self.settings)
        self.graph.__enter__()
        self.graph.ensure_schema()
        self.llm = LLM(self.settings)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.llm is not None:
            await self.llm.close()
        if self.graph is not None:
            self.graph.__exit__(None, None, None)

    def question_llm(self) -> LLM:
        """The shared client with a usage account of its own (the trace's cost line)."""
        assert self.llm is not None, "the service is not started"
        llm = copy.copy(self.llm)
        llm.usage = Usage()
        return llm

    async def ask(self, request: AskRequest, admitted: bool = False) -> Answer:
        """Answer ``request`` when a slot is free (waiting for one first). Raises BusyError
        when the queue is full, and what ``answer_question`` raises."""
        if not admitted:
            self.gate.admit()
        async with self.gate.slot():
            llm = self.question_llm()
            try:
                return await answer_question(self.g, llm, self.settings, request)
            finally:
                self._record(llm.usage)

    @property
    def g(self) -> Graph:
        assert self.graph is not None, "the service is not started"
        return self.graph

    def _record(self, usage: Usage) -> None:
        try:
            record_usage(self.g, usage)
        except Exception as err:  # noqa: BLE001 - accounting must never mask the answer
            log.warning("could not record LLM usage in the graph: %s", err)

    def start_ingest(self, paths: list[Path], topics: bool = True) -> dict[str, Any]:
        """An ingest job in the background; its state (progress by stage, result or error)
        is ``self.jobs[id]``."""
        job: dict[str, Any] = {"id": uuid.uuid4().hex[:12], "status": "running",
                               "paths": [str(p) for p in paths], "progress": {},
                               "result": None, "error": None}
        self.jobs[job["id"]] = job

        def progress(task: str, n: int, total: int | None = None) -> None:
            done, known = job["progress"].get(task, [0, None])
            job["progress"][task] = [done + n, total if total is not None else known]

        async def run() -> None:
            usage = Usage()
            try:
                async with LLM(self.settings, usage) as llm:
                    result = await run_ingest(self.g, llm, self.settings, paths,
                                              progress=progress, topics=topics)
                job["result"] = result.model_dump(mode="json")
                job["status"] = "failed items" if result.failed_items else "done"
            except RetagError as err:
                job["status"], job["error"] = "failed", str(err)
            except Exception as err:  # noqa: BLE001 - a job reports, never kills the server
                log.exception("ingest job %s", job["id"])
                job["status"], job["error"] = "failed", f"internal error: {type(err).__name__}"
            finally:
                self._record(usage)

        self._spawn(run())
        return job

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

