"""A question process (the child side of :mod:`.procs`): a :class:`~.questions.QuestionRunner`
and a loop reading the server's messages over the pipe.

From the server: ``("ask", id, request fields, as_json, stream)``, ``("cancel", id)``,
``("stop",)``. To it: ``("ready",)`` or ``("failed", error)`` once, then ``("event", id,
kind, data)`` while a streamed question runs and ``("done", id, JSON or Answer, peak)`` or
``("error", id, error, peak)`` when it ends (``peak``: the most LLM calls at once so far).
SIGTERM (a service manager stopping the whole group) lets the questions under way finish,
up to DRAIN_SECONDS, before the process ends; the server's "stop" ends it at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any

from .. import events
from ..config import Settings
from ..errors import RetagError
from ..query.ask import ask_model
from .child import begin, portable
from .questions import QUESTIONS_PER_CALL, QuestionRunner

log = logging.getLogger(__name__)
DRAIN_SECONDS = 30.0


def main(conn: Connection, settings: Settings, calls: int, level: int) -> None:
    begin("questions", level)
    asyncio.run(_serve(conn, settings, calls))


async def _serve(conn: Connection, settings: Settings, calls: int) -> None:
    lock = threading.Lock()  # question loops send events from their own threads

    def send(message: tuple[Any, ...]) -> None:
        with lock, contextlib.suppress(OSError):  # OSError: the server is gone
            conn.send(message)

    runner = QuestionRunner(settings, slots=QUESTIONS_PER_CALL * calls, calls=calls)
    try:
        await runner.start()
    except Exception as err:  # noqa: BLE001 - the server's reason (Neo4j down: a 503)
        send(("failed", portable(err)))
        return
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    tasks: dict[int, asyncio.Task[None]] = {}

    async def answer(qid: int, request: dict[str, Any], as_json: bool, stream: bool) -> None:
        def listen(kind: str, data: dict[str, Any]) -> None:
            send(("event", qid, kind, data))
        try:
            req = ask_model()(**request)
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
            send(("error", qid, portable(err), runner.calls.peak))
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

    async def drain() -> None:
        log.info("SIGTERM: finishing %d questions, then stopping", len(tasks))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*tasks.values(), return_exceptions=True),
                                   DRAIN_SECONDS)
        done.set()

    loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(drain()))
    loop.add_reader(conn.fileno(), receive)
    send(("ready",))
    await done.wait()
    loop.remove_reader(conn.fileno())
    for task in list(tasks.values()):
        task.cancel()
    await asyncio.gather(*tasks.values(), return_exceptions=True)
    await runner.stop()
