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
import multiprocessing as mp
import os
import pickle
import signal
import threading
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from .. import events
from ..config import Settings
from ..errors import RetagError
from ..model import Answer
from .answer import AskRequest
from .questions import QUESTIONS_PER_CALL, QuestionRunner

log = logging.getLogger(__name__)
START_SECONDS = 120.0  # a question process that is not ready by then failed to start


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
        ctx = mp.get_context("spawn")  # never fork a process with threads and a driver
        parent, there = ctx.Pipe()
        child.process = ctx.Process(
            target=_main, args=(there, self.settings, child.calls, logging.getLogger().level),
            name="retag-questions", daemon=True)
        child.process.start()
        there.close()
        child.conn = parent
        loop = asyncio.get_running_loop()
        child.ready = loop.create_future()
        loop.add_reader(parent.fileno(), self._receive, child)

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
        elif kind == "failed":  # could not start: its reason
            if not child.ready.done():
                child.ready.set_exception(QuestionProcessError(message[1]))
        elif kind == "event":
            _, qid, event, data = message
            entry = child.pending.get(qid)
            if entry is not None and entry[1] is not None:
                entry[1](event, data)
        else:  # "done" | "error", qid, result or exception, peak
            _, qid, value, child.peak = message
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
        code = child.process.exitcode if child.process is not None else None
        if not self._stopping:
            log.error("a question process stopped (exit code %s); %d questions on it failed",
                      code, len(child.pending))
        err = QuestionProcessError(f"the question process stopped (exit code {code}); the "
                                   "question was not answered")
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
                if child.process.is_alive():
                    child.process.terminate()
            if child.conn is not None:
                self._gone(child)


def _portable(err: BaseException) -> BaseException:
    """``err`` if it survives pickling, else the nearest class of it that does, with its
    message (an exception whose __init__ takes more than the message does not)."""
    for cls in type(err).__mro__:
        try:
            copy = err if cls is type(err) else cls(str(err))
            pickle.loads(pickle.dumps(copy))
            return copy
        except Exception:  # noqa: BLE001, S112 - try the next class up
            continue
    return RuntimeError(f"{type(err).__name__}: {err}")


def _main(conn: Connection, settings: Settings, calls: int, level: int) -> None:
    """A question process: a runner, and the loop reading the server's messages."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    os.dup2(2, 1)  # stdout may be MCP's channel (--mcp-stdio): anything printed goes to stderr
    logging.basicConfig(level=level, format=f"%(levelname)s [questions {os.getpid()}] "
                        "%(name)s: %(message)s")
    asyncio.run(_serve(conn, settings, calls))


async def _serve(conn: Connection, settings: Settings, calls: int) -> None:
    lock = threading.Lock()  # question loops send events from their own threads

    def send(message: tuple[Any, ...]) -> None:
        with lock, contextlib.suppress(OSError):  # OSError: the server is gone
            conn.send(message)

    runner = QuestionRunner(settings, slots=QUESTIONS_PER_CALL * calls, calls=calls)
    try:
        await runner.start()
    except Exception as err:  # noqa: BLE001 - reported to the server as its reason
        send(("failed", f"{type(err).__name__}: {err}"))
        return
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    tasks: dict[int, asyncio.Task[None]] = {}

    async def answer(qid: int, request: dict[str, Any], as_json: bool, stream: bool) -> None:
        def listen(kind: str, data: dict[str, Any]) -> None:
            send(("event", qid, kind, data))
        try:
            req = AskRequest(**request)
            if stream:
                with events.listening(listen):
                    value: Any = await (runner.ask_json(req) if as_json else runner.ask(req))
            else:
                value = await (runner.ask_json(req) if as_json else runner.ask(req))
            send(("done", qid, value, runner.calls.peak))
        except asyncio.CancelledError:
            pass  # the server stopped waiting: nothing to send
        except Exception as err:  # noqa: BLE001 - the server answers with it
            if not isinstance(err, RetagError):
                log.exception("question %s", qid)
            send(("error", qid, _portable(err), runner.calls.peak))
        finally:
            tasks.pop(qid, None)

    def receive() -> None:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the server is gone
            done.set()
            return
        if message[0] == "ask":
            _, qid, request, as_json, stream = message
            tasks[qid] = loop.create_task(answer(qid, request, as_json, stream))
        elif message[0] == "cancel" and (task := tasks.get(message[1])) is not None:
            task.cancel()
        elif message[0] == "stop":
            done.set()

    loop.add_reader(conn.fileno(), receive)
    send(("ready",))
    await done.wait()
    loop.remove_reader(conn.fileno())
    for task in list(tasks.values()):
        task.cancel()
    await asyncio.gather(*tasks.values(), return_exceptions=True)
    await runner.stop()

