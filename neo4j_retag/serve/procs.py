"""Question processes: `serve` answers questions in child processes, each with its own
:class:`~.questions.QuestionRunner`, and keeps its own process for HTTP, MCP and /health.

Why processes: a question's work between its LLM calls is Python (prompts, token counts,
parsing replies, encoding its trace) and makes many objects. In the server's process it
held the interpreter lock and set off full garbage collections (150-230 ms each under 20
questions, every thread stopped), so /health's p99 was 130-300 ms while questions ran.
In processes of their own the server's loop only relays: a request in, stage events and
the answer out, over a pipe.

The LLM call limit (LLM_CONCURRENCY) is split among the processes, so it holds in all;
each process takes QUESTIONS_PER_CALL times its calls in questions at once."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from .. import events
from ..config import Settings
from ..errors import RetagError
from ..model import Answer
from ..query.ask import AskRequest
from . import question_process
from .child import spawn
from .questions import QUESTIONS_PER_CALL

log = logging.getLogger(__name__)
START_SECONDS = 120.0  # a question process that is not ready by then failed to start
RETRY_SECONDS = 2.0  # after a failed start, questions fail with its reason this long


class QuestionProcessError(RetagError):
    """A question process stopped (or never started): the questions on it are not answered."""


def shares(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` near-equal positive shares (fewer parts when
    ``total`` is smaller): ``shares(8, 3) == [3, 3, 2]``."""
    parts = max(1, min(parts, total))
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


@dataclass
class _Child:
    calls: int
    process: Any = None  # multiprocessing's SpawnProcess
    conn: Connection | None = None
    ready: asyncio.Future[None] | None = None
    pending: dict[int, tuple[asyncio.Future[Any], events.Listener | None]] = field(
        default_factory=dict)
    peak: int = 0  # the most LLM calls at once it has reported
    failure: BaseException | None = None  # why its last start failed
    retry_at: float = 0.0  # not started again before this (time.monotonic())

    @property
    def slots(self) -> int:
        return QUESTIONS_PER_CALL * self.calls


class QuestionProcesses:
    """``processes`` question processes sharing ``calls`` LLM calls at once. :meth:`start`
    and :meth:`ask` are called from the server's loop only (its reader dispatches there)."""

    def __init__(self, settings: Settings, processes: int, calls: int) -> None:
        self.settings = settings
        self.children = [_Child(n) for n in shares(calls, processes)]
        self._ids = itertools.count()
        self._stopping = False

    @property
    def limit(self) -> int:
        return sum(c.calls for c in self.children)

    @property
    def peak(self) -> int:
        """The sum of each process's most LLM calls at once: an upper bound of the whole's."""
        return sum(c.peak for c in self.children)

    async def start(self) -> None:
        """Start every process; returns once each is ready. Raises QuestionProcessError when
        one fails to start (its reason, e.g. Neo4j unreachable, in the message)."""
        for child in self.children:
            self._spawn(child)
        await asyncio.gather(*(self._ready(c) for c in self.children))

    def _spawn(self, child: _Child) -> None:
        child.process, child.conn = spawn(
            question_process.main, (self.settings, child.calls, logging.getLogger().level),
            "retag-questions")
        loop = asyncio.get_running_loop()
        child.ready = loop.create_future()
        child.ready.add_done_callback(_retrieved)  # a failed start may have no waiter
        loop.add_reader(child.conn.fileno(), self._receive, child)

    async def _ready(self, child: _Child) -> None:
        assert child.ready is not None
        try:
            await asyncio.wait_for(asyncio.shield(child.ready), START_SECONDS)
        except TimeoutError:
            raise QuestionProcessError(
                f"a question process was not ready within {START_SECONDS:.0f} s") from None

    async def ask(self, request: AskRequest, as_json: bool) -> Answer | str:
        """``request`` answered in the least busy process: its JSON (``as_json``) or its
        Answer. Stage events go to the caller's events listener. Cancelling the caller
        cancels the question there. Raises what the question raised, QuestionProcessError
        when its process stops."""
        child = min(self.children, key=lambda c: len(c.pending) / c.slots)
        if child.conn is None:
            if child.failure is not None and time.monotonic() < child.retry_at:
                raise child.failure  # it failed to start a moment ago: not again at once
            self._spawn(child)  # it stopped earlier: a new one
        qid = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        listener = events.current()
        child.pending[qid] = (fut, listener)  # counted before any wait: the next ask sees it
        try:
            await self._ready(child)
            self._send(child, ("ask", qid, request.model_dump(), as_json, listener is not None))
            return await fut
        except asyncio.CancelledError:
            with contextlib.suppress(QuestionProcessError):
                self._send(child, ("cancel", qid))
            raise
        finally:
            child.pending.pop(qid, None)

    def _send(self, child: _Child, message: tuple[Any, ...]) -> None:
        try:
            if child.conn is None:
                raise OSError
            child.conn.send(message)
        except OSError:
            raise QuestionProcessError("the question process stopped; the question was not "
                                       "answered") from None

    def _receive(self, child: _Child) -> None:
        conn = child.conn
        assert conn is not None and child.ready is not None
        try:
            message = conn.recv()
        except (EOFError, OSError):
            self._gone(child)
            return
        kind = message[0]
        if kind == "ready":
            if not child.ready.done():
                child.ready.set_result(None)
        elif kind == "failed":  # could not start: its reason (Neo4j down: a ConfigError)
            child.failure, child.retry_at = message[1], time.monotonic() + RETRY_SECONDS
            if not child.ready.done():
                child.ready.set_exception(message[1])
        elif kind == "event":
            _, qid, event, data = message
            entry = child.pending.get(qid)
            if entry is not None and entry[1] is not None:
                entry[1](event, data)
        else:  # "done" | "error", qid, result or exception, peak
            _, qid, value, peak = message
            child.peak = max(child.peak, peak)  # a new process starts again from 0
            entry = child.pending.get(qid)
            if entry is None or entry[0].done():
                return  # cancelled meanwhile
            if kind == "done":
                entry[0].set_result(value)
            else:
                entry[0].set_exception(value)

    def _gone(self, child: _Child) -> None:
        """The process's pipe closed: it stopped. Its questions fail; the next question
        starts a new one."""
        loop = asyncio.get_running_loop()
        if child.conn is not None:
            loop.remove_reader(child.conn.fileno())
            child.conn.close()
            child.conn = None
        started = child.ready is not None and child.ready.done() and not child.ready.exception()
        if child.process is not None:
            child.process.join(0.1)  # its pipe just closed: reaped at once, or nearly
        code = child.process.exitcode if child.process is not None else None
        stopped = "the question process stopped" + (f" (exit code {code})" if code is not None
                                                    else "")
        if started and not self._stopping:
            log.error("%s; %d questions on it failed", stopped, len(child.pending))
        err = QuestionProcessError(f"{stopped}; the question was not answered")
        if child.ready is not None and not child.ready.done():
            child.ready.set_exception(err)
        for fut, _ in list(child.pending.values()):
            if not fut.done():
                fut.set_exception(err)

    async def stop(self) -> None:
        self._stopping = True
        for child in self.children:
            if child.conn is not None:
                with contextlib.suppress(OSError):
                    child.conn.send(("stop",))
        for child in self.children:
            if child.process is not None:
                await asyncio.to_thread(child.process.join, 10)
                if child.process.is_alive():  # stuck (or stopped with SIGSTOP): no waiting
                    log.warning("a question process did not stop within 10 s: killed")
                    child.process.kill()
                    await asyncio.to_thread(child.process.join, 5)
            if child.conn is not None:
                self._gone(child)


def _retrieved(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled():
        fut.exception()
