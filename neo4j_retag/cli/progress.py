"""Progress a log can read: the library's ``model.Progress`` callback as plain lines.

When stdout is not a terminal (a script, CI, ``> log.txt``) rich progress bars draw nothing,
and a long ingest looked dead for minutes. ``ProgressLines`` prints one line when a task (a
pipeline stage: "text units extracted", "community reports", ...) starts, one when it ends,
and one every ``interval`` seconds while it runs, from a ticker thread so a single slow LLM
call still shows signs of life:

    [progress 00:00:12] text units extracted: 5/12 (42%), 0.41/s, ETA 00:00:17
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TextIO


def clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


@dataclass
class _Task:
    total: int | None
    started: float = field(default_factory=time.monotonic)
    done: int = 0
    ended: bool = False

    def status(self, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        if self.total is None:
            return f"{self.done} done, {rate:.2f}/s"
        pct = 100 * self.done / self.total if self.total else 100
        eta = clock((self.total - self.done) / rate) if rate > 0 else "unknown"
        return f"{self.done}/{self.total} ({pct:.0f}%), {rate:.2f}/s, ETA {eta}"


class ProgressLines:
    """A ``model.Progress`` callback writing plain lines to ``stream``; use as a context
    manager (the ticker thread runs inside it; open tasks get their end line on exit).

    A task ends when its count reaches its total, when it is restarted (``n == 0`` with a
    total, e.g. "community reports" once per topic), or when the context exits."""

    def __init__(self, stream: TextIO, interval: float = 10.0, label: str = "progress") -> None:
        self.stream, self.interval, self.label = stream, interval, label
        self.tasks: dict[str, _Task] = {}
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.t0 = time.monotonic()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> ProgressLines:
        self.thread = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        if self.thread is not None:
            self.thread.join()
        with self.lock:
            for name, task in self.tasks.items():
                if not task.ended:
                    self._end(name, task, "stopped" if exc and exc[0] else "done")

    def __call__(self, task: str, n: int, total: int | None = None) -> None:
        with self.lock:
            t = self.tasks.get(task)
            if t is None or (t.ended and n == 0):
                t = self.tasks[task] = _Task(total)
                self._line(f"{task}: start" + (f" ({total} to do)" if total is not None else ""))
            elif total is not None:
                t.total = total
            t.done += n
            if not t.ended and t.total is not None and t.done >= t.total:
                self._end(task, t, "done")

    def _end(self, name: str, task: _Task, how: str) -> None:
        task.ended = True
        now = time.monotonic()
        self._line(f"{name}: {how}, {task.status(now).split(', ETA')[0]} "
                   f"in {now - task.started:.1f}s")

    def _tick(self) -> None:
        while not self.stopped.wait(self.interval):
            with self.lock:
                now = time.monotonic()
                for name, task in self.tasks.items():
                    if not task.ended:
                        self._line(f"{name}: {task.status(now)}")

    def _line(self, text: str) -> None:
        self.stream.write(f"[{self.label} {clock(time.monotonic() - self.t0)}] {text}\n")
        self.stream.flush()
