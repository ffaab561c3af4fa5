"""Background processes with a pid file and a log file: start, wait until ready, stop."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any


def read_pid(pid_file: Path) -> int | None:
    """The pid in ``pid_file`` if that process is still alive, else None (stale files removed)."""
    try:
        pid = int(pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pid_file.unlink(missing_ok=True)
        return None
    except PermissionError:
        pass
    return pid


def spawn(cmd: list[str], pid_file: Path, log_file: Path, env: dict[str, str] | None = None,
          cwd: Path | None = None) -> int:
    """Start ``cmd`` detached (own session, so it outlives the CLI); returns its pid."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as log:
        proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True,
        )
    pid_file.write_text(str(proc.pid))
    return proc.pid


def wait_until(ready: Callable[[], bool], timeout: float, pid_file: Path, log_file: Path,
               what: str) -> None:
    """Poll ``ready()`` until true; raises RuntimeError (with the log tail) on timeout or death."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        if read_pid(pid_file) is None:
            raise RuntimeError(f"{what} exited during start-up; log {log_file}:\n{tail(log_file)}")
        time.sleep(1.0)
    raise RuntimeError(f"{what} not ready after {timeout:.0f}s; log {log_file}:\n{tail(log_file)}")


def stop(pid_file: Path, timeout: float = 60.0) -> bool:
    """SIGTERM (a clean shutdown for Neo4j and uvicorn), SIGKILL after ``timeout``.

    True if it was running."""
    pid = read_pid(pid_file)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        # reap if it is our child (it is not when started by another CLI call)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.3)
    else:
        os.kill(pid, signal.SIGKILL)
    pid_file.unlink(missing_ok=True)
    return True


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def probe_models(port: int, timeout: float = 2.0) -> tuple[Any, bool]:
    """(GET /v1/models of an OpenAI-compatible server on 127.0.0.1:``port``, busy): the reply,
    or None if nothing answers; ``busy`` when the port took the request but gave no reply
    within ``timeout`` seconds (llama_cpp.server answers nothing while it generates)."""
    url = f"http://127.0.0.1:{port}/v1/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return json.loads(resp.read()), False
    except TimeoutError:
        return None, True
    except urllib.error.URLError as err:
        return None, isinstance(err.reason, TimeoutError)
    except (OSError, ValueError):
        return None, False


def serving(port: int, timeout: float = 2.0) -> bool:
    """Something serves 127.0.0.1:``port``: it answers /v1/models or is busy generating."""
    models, busy = probe_models(port, timeout)
    return models is not None or busy
