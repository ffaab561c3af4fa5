"""What one `serve` process holds for its whole life: the settings, the Neo4j driver, the LLM
clients (one per question loop, all under one LLM call limit), the question gate and
the ingest jobs. Each question gets its own usage account, so its trace's cost is its own.

Nothing slow runs on the event loop the server answers on: questions run on loops of their
own, one per question slot (:mod:`.worker`), the routes' database calls go to a pool of worker
threads (:meth:`Service.db`), an ingest job runs on a thread of its own with its own event
loop, LLM client and driver, and /health checks on its own thread (:mod:`.health`). The
driver fails fast (``Graph(fail_fast=True)``): while Neo4j is down a question fails within
seconds with one line (503), and works again once it is back."""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import logging
import threading
import uuid
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from ..config import Settings
from ..db import Graph
from ..errors import RetagError
from ..index.pipeline import run_ingest
from ..llm import LLM, Usage
from ..model import Answer
from ..ops.stats import record_usage
from .answer import AskRequest, answer_question
from .gate import Gate
from .health import Health
from .limit import SharedLimit
from .origin import Sessions
from .worker import Worker

T = TypeVar("T")
QUESTIONS_PER_CALL = 2  # question slots per LLM call slot
log = logging.getLogger(__name__)


class Service:
    """Open with :meth:`start`, close with :meth:`stop` (the app's lifespan does both)."""

    def __init__(self, settings: Settings, *, allow_writes: bool = False) -> None:
        self.settings, self.allow_writes = settings, allow_writes
        # more questions at once than LLM calls: a question spends part of its time between
        # calls (queries, prompts), and LLM_CONCURRENCY questions would leave call slots idle;
        # the calls themselves stay at LLM_CONCURRENCY (one limit shared by the loops)
        slots = QUESTIONS_PER_CALL * settings.llm.parallel
        self.calls = SharedLimit(settings.llm.parallel)
        self.gate = Gate(slots, settings.serve.queue_limit, self.calls)
        self.graph: Graph | None = None
        self.llms: list[LLM] = []  # one per question loop, the LLM call limit shared
        # one loop per slot: no question waits on another's blocking step (a Neo4j query)
        self.worker = Worker(slots)
        self.jobs: dict[str, dict[str, Any]] = {}
        self.sessions = Sessions()
        self.health = Health(self)
        self._pool = ThreadPoolExecutor(max(4, settings.llm.parallel),
                                        thread_name_prefix="retag-db")
        self._stopping = threading.Event()  # tells ingest jobs' threads to stop
        self._threads: set[threading.Thread] = set()
        self._jobs_lock = threading.Lock()

    async def start(self) -> None:
        self.graph = await self.db(functools.partial(Graph, fail_fast=True), self.settings)
        await self.db(self.graph.ensure_schema)
        embeds = SharedLimit(1 if self.settings.embedding.local(self.settings.llm)
                             else self.settings.llm.parallel)
        for _ in self.worker.loops:
            llm = LLM(self.settings)  # used on its question loop only (its connections)
            llm.semaphore, llm.embedding.semaphore = self.calls, embeds  # type: ignore[assignment]
            # made now, not on a loop's first question: an openai client loads the CA
            # certificates (tens of ms holding the GIL), which would stall every other client
            llm.embedding.client  # noqa: B018
            self.llms.append(llm)
        self.worker.start()

    async def stop(self) -> None:
        self._stopping.set()
        for thread in list(self._threads):
            await asyncio.to_thread(thread.join, 10)
        if self.llms:
            await self.worker.each(lambda i: self.llms[i].close())
        self.worker.stop()
        await self.health.close()
        if self.graph is not None:
            self.graph.__exit__(None, None, None)
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on a worker thread (a database call, a file walk): the
        event loop goes on answering meanwhile."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    def question_llm(self) -> LLM:
        """The client of the caller's question loop with a usage account of its own (the
        trace's cost line)."""
        assert self.llms, "the service is not started"
        llm = copy.copy(self.llms[self.worker.index()])
        llm.usage = Usage()
        return llm

    async def ask(self, request: AskRequest, admitted: bool = False) -> Answer:
        """Answer ``request`` when a slot is free (waiting for one first), on a question loop
        of its own. Raises BusyError when the queue is full, DatabaseUnreachable (a
        ConfigError) within seconds while Neo4j is down, and what ``answer_question``
        raises."""
        return await self._in_slot(lambda: self._answer(request), admitted)

    async def ask_json(self, request: AskRequest, admitted: bool = False) -> str:
        """:meth:`ask`, the answer as `ask --json`'s JSON, encoded on the question's own loop:
        a trace encoded on the server's loop holds up every other client (/health) while it
        runs, and answers that end together queue up there. Raises as :meth:`ask`."""
        return await self._in_slot(lambda: self._answer_json(request), admitted)

    async def _in_slot(self, make: Callable[[], Coroutine[Any, Any, T]], admitted: bool) -> T:
        # ``make`` is called only once admitted: a refused question leaves no coroutine unrun
        if not admitted:
            self.gate.admit()
        async with self.gate.slot():
            return await self.worker.run(make())

    async def _answer_json(self, request: AskRequest) -> str:
        answer = await self._answer(request)
        return json.dumps(answer.as_dict(), default=str, ensure_ascii=False, separators=(",", ":"))

    async def _answer(self, request: AskRequest) -> Answer:
        llm = self.question_llm()
        try:
            return await answer_question(self.g, llm, self.settings, request)
        finally:
            await self.db(self._record, llm.usage)

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
        """An ingest job on a thread of its own (its own event loop and LLM client: the
        reading, chunking and graph writes never hold up the server's loop); its state
        (progress by stage, result or error) is ``self.jobs[id]``."""
        job: dict[str, Any] = {"id": uuid.uuid4().hex[:12], "status": "running",
                               "paths": [str(p) for p in paths], "progress": {},
                               "result": None, "error": None}
        with self._jobs_lock:
            self.jobs[job["id"]] = job

        def progress(task: str, n: int, total: int | None = None) -> None:
            with self._jobs_lock:  # the job's thread writes, the server's loop reads
                done, known = job["progress"].get(task, [0, None])
                job["progress"][task] = [done + n, total if total is not None else known]

        async def run() -> None:
            usage = Usage()
            work = asyncio.create_task(self._ingest(paths, usage, progress, topics))
            while not work.done():  # a server that stops cancels the job
                await asyncio.wait({work}, timeout=0.5)
                if self._stopping.is_set():
                    work.cancel()
            end: dict[str, Any]
            try:
                result = await work
                end = {"result": result.model_dump(mode="json"),
                       "status": "failed items" if result.failed_items else "done"}
            except asyncio.CancelledError:
                end = {"status": "failed", "error": "cancelled: the server stopped"}
            except RetagError as err:
                end = {"status": "failed", "error": str(err)}
            except Exception as err:  # noqa: BLE001 - a job reports, never kills the server
                log.exception("ingest job %s", job["id"])
                end = {"status": "failed", "error": f"internal error: {type(err).__name__}"}
            self._record(usage)
            with self._jobs_lock:
                job.update(end)

        def thread() -> None:
            try:
                asyncio.run(run())
            finally:
                self._threads.discard(threading.current_thread())

        t = threading.Thread(target=thread, name=f"retag-ingest-{job['id']}", daemon=True)
        self._threads.add(t)
        t.start()
        return job

    def job(self, job_id: str) -> dict[str, Any] | None:
        """A copy of job ``job_id`` as it stands (None when there is no such job)."""
        with self._jobs_lock:
            job = self.jobs.get(job_id)
            return copy.deepcopy(job) if job is not None else None

    async def _ingest(self, paths: list[Path], usage: Usage, progress: Any,
                      topics: bool) -> Any:
        # a driver of its own with the CLI's retry times: a long ingest rides out a deadlock
        # or a short outage as `ingest` does, where a question fails fast
        with Graph(self.settings) as graph:
            async with LLM(self.settings, usage) as llm:
                return await run_ingest(graph, llm, self.settings, paths, progress=progress,
                                        topics=topics)
