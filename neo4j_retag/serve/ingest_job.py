"""`POST /ingest`'s jobs, each in a process of its own (its own event loop, LLM client and
driver). On a thread of the server's process an ingest's reading, chunking, parsing and
graph writes held the interpreter lock and set off long garbage collections: /health's p99
was 280-300 ms while one ran. The server's side is a thread that reads the job's messages
(progress by stage, then its end) into the job's state."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..config import Settings
from ..db import Graph
from ..errors import RetagError
from ..index.pipeline import run_ingest
from ..llm import LLM, Usage
from ..model import Progress
from ..ops.stats import record_usage_or_warn
from .child import begin, spawn

log = logging.getLogger(__name__)


class IngestProcess:
    """One ingest job's process and the thread that follows it. ``progress(task, n, total)``
    and ``end(state)`` are called on that thread; ``state`` is ``{"status": "done" | "failed
    items" | "failed", "result": IngestResult as JSON, or "error": one line}``."""

    def __init__(self, settings: Settings, paths: list[Path], topics: bool,
                 progress: Progress, end: Callable[[dict[str, Any]], None]) -> None:
        self._process, self._conn = spawn(
            _main, (settings, paths, topics, logging.getLogger().level), "retag-ingest")
        self._progress, self._end = progress, end
        self.thread = threading.Thread(target=self._follow, name="retag-ingest", daemon=True)
        self.thread.start()

    def _follow(self) -> None:
        while True:
            try:
                message = self._conn.recv()
            except (EOFError, OSError):
                self._process.join(5)
                self._end({"status": "failed", "error": "the ingest process stopped (exit "
                           f"code {self._process.exitcode}); ingest again to finish"})
                break
            if message[0] == "progress":
                self._progress(*message[1:])
            else:
                self._end(message[1])
                break
        self._conn.close()
        self._process.join(10)

    def stop(self) -> None:
        """Ask the job to stop (it ends as ``failed: cancelled``); returns at once."""
        with contextlib.suppress(OSError):  # it has ended already
            self._conn.send(("stop",))


def _main(conn: Connection, settings: Settings, paths: list[Path], topics: bool,
          level: int) -> None:
    begin("ingest", level)
    asyncio.run(_job(conn, settings, paths, topics))


async def _job(conn: Connection, settings: Settings, paths: list[Path], topics: bool) -> None:
    usage = Usage()
    lock = threading.Lock()  # stages may report from threads of their own

    def progress(task: str, n: int, total: int | None = None) -> None:
        with lock:
            conn.send(("progress", task, n, total))

    async def run() -> Any:
        # the CLI's retry times: a long ingest rides out a deadlock or a short outage as
        # `ingest` does, where a question fails fast
        with Graph(settings) as graph:
            try:
                async with LLM(settings, usage) as llm:
                    return await run_ingest(graph, llm, settings, paths, progress=progress,
                                            topics=topics)
            finally:
                record_usage_or_warn(graph, usage)

    work = asyncio.create_task(run())
    loop = asyncio.get_running_loop()

    def stop() -> None:  # "stop", the server gone (EOF), or SIGTERM
        loop.remove_reader(conn.fileno())
        work.cancel()

    loop.add_reader(conn.fileno(), stop)
    loop.add_signal_handler(signal.SIGTERM, stop)
    end: dict[str, Any]
    try:
        result = await work
        end = {"result": result.model_dump(mode="json"),
               "status": "failed items" if result.failed_items else "done"}
    except asyncio.CancelledError:
        end = {"status": "failed", "error": "cancelled: the server stopped"}
    except RetagError as err:
        end = {"status": "failed", "error": str(err)}
    except Exception as err:  # noqa: BLE001 - a job reports, never fails silently
        log.exception("ingest job")
        end = {"status": "failed", "error": f"internal error: {type(err).__name__}"}
    loop.remove_reader(conn.fileno())  # (a no-op after a stop)
    with lock, contextlib.suppress(OSError):  # OSError: the server is gone
        conn.send(("end", end))
