"""What `serve`'s child processes (question processes, ingest jobs) have in common: how they
are started, how they treat signals, and how an error crosses the pipe back."""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import pickle
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any


def spawn(target: Callable[..., None], args: tuple[Any, ...], name: str) -> tuple[Any, Connection]:
    """A new process running ``target(conn, *args)``, and the server's end of the pipe.

    Spawned, never forked: the server has threads and a driver. SIGINT is ignored while it
    starts (an ignored signal stays ignored across the exec, and Python then leaves it so), so
    a Ctrl-C that reaches the whole process group while the child imports prints no
    KeyboardInterrupt traceback from it; the server stops its children itself. Only the main
    thread may change a handler: elsewhere (an app that runs the server on a thread) the
    child ignores SIGINT from its first line of ours on (:func:`begin`)."""
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    process = ctx.Process(target=target, args=(theirs, *args), name=name, daemon=True)
    main = threading.current_thread() is threading.main_thread()
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        process.start()
    finally:
        if main:
            signal.signal(signal.SIGINT, handler)
    theirs.close()
    return process, ours


def begin(kind: str, level: int) -> None:
    """A child's first steps: Ctrl-C ignored, stdout onto stderr (stdout may be MCP's channel
    with --mcp-stdio), log records marked with the child's kind and pid."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.dup2(2, 1)
    logging.basicConfig(level=level, format=f"%(levelname)s [{kind} {os.getpid()}] "
                        "%(name)s: %(message)s")


def portable(err: BaseException) -> BaseException:
    """``err`` if it survives pickling, else the nearest class of it that does, with its
    message (an exception whose __init__ takes more than the message does not): its HTTP
    status and one line survive the trip to the server."""
    for cls in type(err).__mro__:
        try:
            copy = err if cls is type(err) else cls(str(err))
            pickle.loads(pickle.dumps(copy))
            return copy
        except Exception:  # noqa: BLE001, S112 - try the next class up
            continue
    return RuntimeError(f"{type(err).__name__}: {err}")
