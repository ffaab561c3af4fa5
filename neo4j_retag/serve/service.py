"""What one `serve` process holds for its whole life: the settings, the Neo4j driver for the
routes, the question gate, what answers questions and the ingest jobs.

Nothing slow runs on the event loop the server answers on: questions run in question
processes (:mod:`.procs`; with ``SERVE_PROCESSES=0`` on loops of their own in this one,
:mod:`.questions`), the routes' database calls go to a pool of worker threads
(:meth:`Service.db`), an ingest job runs in a process of its own (:mod:`.ingest_job`), and
/health checks on its own thread (:mod:`.health`). The drivers fail fast
(``Graph(fail_fast=True)``): while Neo4j is down a question fails within seconds with one
line (503), and works again once it is back."""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from ..config import Settings
from ..db import Graph
from ..model import Answer
from ..query.ask import AskRequest
from .gate import Gate
from .health import Health
from .ingest_job import IngestProcess
from .jobs import Job, Jobs
from .origin import Sessions
from .procs import QuestionProcesses
from .questions import QUESTIONS_PER_CALL, QuestionRunner
from .throttle import Throttle

T = TypeVar("T")
log = logging.getLogger(__name__)


class Service:
    """Open with :meth:`start`, close with :meth:`stop` (the app's lifespan does both)."""

    def __init__(self, settings: Settings, *, allow_writes: bool = False) -> None:
        self.settings, self.allow_writes = settings, allow_writes
        # more questions at once than LLM calls: a question spends part of its time between
        # calls (queries, prompts), and LLM_CONCURRENCY questions would leave call slots idle;
        # the calls themselves stay at LLM_CONCURRENCY (one limit, split among processes)
        calls = settings.llm.parallel
        self.procs = (QuestionProcesses(settings, settings.serve.processes, calls)
                      if settings.serve.processes else None)
        self.runner: QuestionRunner | None = None  # SERVE_PROCESSES=0: made at start
        slots = QUESTIONS_PER_CALL * calls  # the processes' shares add up to the calls
        self.gate = Gate(slots, settings.serve.queue_limit, self.procs)
        self.graph: Graph | None = None
        self.jobs = Jobs()
        self.sessions = Sessions()
        self.throttle = Throttle()  # key checks: the Guard's bearer, /login and /session
        self.health = Health(self)
        self._pool = ThreadPoolExecutor(max(4, settings.llm.parallel),
                                        thread_name_prefix="retag-db")
        self._ingests: list[IngestProcess] = []
        self._ingests_lock = threading.Lock()  # jobs start on the routes' worker threads

    async def start(self) -> None:
        """Connect, check the schema, start the question processes (or runner). Raises
        DatabaseUnreachable (a ConfigError) or QuestionProcessError."""
        self.graph = await self.db(functools.partial(Graph, fail_fast=True), self.settings)
        await self.db(self.graph.ensure_schema)
        if self.procs is not None:
            await self.procs.start()
        else:
            self.runner = QuestionRunner(self.settings, self.gate.limit,
                                         self.settings.llm.parallel, self.graph)
            self.gate.calls = self.runner.calls
            await self.runner.start()
        # what is made by now lives as long as the server: out of the collector's way, so
        # a full collection under load walks only the questions' objects (shorter pauses)
        gc.freeze()

    async def stop(self) -> None:
        for ingest in self._ingests:  # each ends as "cancelled: the server stopped"
            ingest.stop()
        for ingest in self._ingests:
            await asyncio.to_thread(ingest.thread.join, 15)
        if self.procs is not None:
            await self.procs.stop()
        if self.runner is not None:
            await self.runner.stop()
        await self.health.close()
        if self.graph is not None:
            self.graph.__exit__(None, None, None)
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on a worker thread (a database call, a file walk): the
        event loop goes on answering meanwhile."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    async def ask(self, request: AskRequest, admitted: bool = False) -> Answer:
        """Answer ``request`` when a slot is free (waiting for one first), in a question
        process (or on a question loop of its own). Raises BusyError when the queue is full,
        DatabaseUnreachable (a ConfigError) within seconds while Neo4j is down,
        QuestionProcessError when its process stops, and what ``answer_question`` raises."""
        return await self._in_slot(request, as_json=False, admitted=admitted)

    async def ask_json(self, request: AskRequest, admitted: bool = False) -> str:
        """:meth:`ask`, the answer as `ask --json`'s JSON, encoded where it was answered:
        an answer's trace encoded on the server's loop would hold up every other client
        (/health) while it runs. Raises as :meth:`ask`."""
        return await self._in_slot(request, as_json=True, admitted=admitted)

    async def _in_slot(self, request: AskRequest, as_json: bool, admitted: bool) -> Any:
        if not admitted:
            self.gate.admit()
        async with self.gate.slot():
            if self.procs is not None:
                return await self.procs.ask(request, as_json)
            assert self.runner is not None, "the service is not started"
            return await (self.runner.ask_json(request) if as_json
                          else self.runner.ask(request))

    @property
    def g(self) -> Graph:
        assert self.graph is not None, "the service is not started"
        return self.graph

    def start_ingest(self, paths: list[Path], topics: bool = True) -> Job:
        """An ingest job in a process of its own (:mod:`.ingest_job`); its state (progress by
        stage, result or error) is ``self.job(id)``. A process that cannot be started ends
        the job as failed (and raises)."""
        job = self.jobs.new(paths)
        progress = functools.partial(self.jobs.progress, job.id)
        end = functools.partial(self.jobs.end, job.id)
        with self._ingests_lock:
            self._ingests = [i for i in self._ingests if i.thread.is_alive()]  # ended ones go
            try:
                self._ingests.append(IngestProcess(self.settings, paths, topics, progress, end))
            except Exception as err:  # a running job nobody follows would be kept forever
                end({"status": "failed", "error": f"the ingest process did not start: {err}"})
                raise
        return job

    def job(self, job_id: str) -> Job | None:
        """Job ``job_id`` as it stands (None when there is no such job)."""
        return self.jobs.get(job_id)
