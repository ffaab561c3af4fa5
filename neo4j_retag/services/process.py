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

from neo4j_retag.errors import ConfigError


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
          cwd: Path | None = None, nice: int = 0) -> int:
    """Start ``cmd`` detached (own session, so it outlives the CLI), ``nice`` steps below
    normal CPU priority (set before it runs: every thread it starts inherits it); returns its
    pid."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as log:
        proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True,
            preexec_fn=(lambda: os.nice(nice)) if nice else None,  # noqa: PLW1509 - no threads
        )
    pid_file.write_text(str(proc.pid))
    return proc.pid


class StartFailed(ConfigError, RuntimeError):
    """A local server that died or never answered during start-up: one line with its exit
    status, what to do and its last log lines (a RuntimeError too, as before)."""


def exit_status(pid: int) -> int | None:
    """The exit status of our child ``pid`` once it has exited - reaped, so it leaves no
    zombie that ``os.kill(pid, 0)`` would take for alive - else None (running, or not our
    child: another CLI call started it). A signal's death is its negative number."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status) if done else None


def last_lines(log_file: Path, n: int = 3, width: int = 400) -> str:
    """The last ``n`` non-empty lines of ``log_file`` on one line (" | " between them)."""
    try:
        lines = [ln.strip() for ln in log_file.read_text(errors="replace").splitlines()]
    except FileNotFoundError:
        return "(no log)"
    text = " | ".join([ln for ln in lines if ln][-n:]) or "(empty log)"
    return text if len(text) <= width else "..." + text[-width:]


def wait_until(ready: Callable[[], bool], timeout: float, pid_file: Path, log_file: Path,
               what: str, fix: str = "") -> None:
    """Poll ``ready()`` until true (every 0.2 s for the first 5 s, then every second).
    Raises StartFailed - one line: the exit status, ``fix`` and the log's last lines -
    as soon as the process exits (reaped: no zombie), or after ``timeout`` seconds."""
    pid = read_pid(pid_file)
    started = time.monotonic()
    hint = f": {fix}" if fix else ""
    while time.monotonic() - started < timeout:
        if ready():
            return
        code = exit_status(pid) if pid is not None else None
        if code is not None or read_pid(pid_file) is None:
            pid_file.unlink(missing_ok=True)
            status = f" (exit {code})" if code is not None else ""
            raise StartFailed(f"{what} exited during start-up{status} after "
                              f"{time.monotonic() - started:.1f} s{hint}; log {log_file}: "
                              f"{last_lines(log_file)}")
        time.sleep(0.2 if time.monotonic() - started < 5 else 1.0)
    raise StartFailed(f"{what} not ready after {timeout:.0f} s{hint}; log {log_file}: "
                      f"{last_lines(log_file)}")


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
