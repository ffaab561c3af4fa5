"""The ingest jobs a `serve` process knows of: each job's state (progress by stage, then its
result or error), written by the thread that follows the job and read by the routes. A
long-lived server keeps every running job and the ``kept`` that ended last (``GET
/jobs/{id}`` of an older one is a 404), so its memory does not grow with every ingest."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ..api.documents import Job

KEPT = 100  # ended jobs kept for GET /jobs/{id}


class Jobs:
    """Thread-safe: the job's thread writes, the server's loop reads. Every method returns
    copies: a caller never holds the state the job's thread writes to."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._jobs: dict[str, Job] = {}  # running ones, then the ended ones by when they ended
        self._lock = threading.Lock()

    def new(self, paths: list[Path]) -> Job:
        """A running job for ``paths``."""
        job = Job(paths=[str(p) for p in paths])
        with self._lock:
            self._jobs[job.id] = job
            return job.model_copy(deep=True)

    def progress(self, job_id: str, task: str, n: int, total: int | None = None) -> None:
        """``n`` more items of stage ``task`` done (of ``total``, when known)."""
        with self._lock:
            job = self._jobs[job_id]
            done, known = job.progress.get(task, [0, None])
            job.progress[task] = [(done or 0) + n, total if total is not None else known]

    def end(self, job_id: str, state: dict[str, Any]) -> None:
        """The job ended: ``state`` holds its ``status`` and its ``result`` or ``error``. It
        becomes the newest ended job (pruning goes by when jobs ended, not began)."""
        with self._lock:
            job = self._jobs.pop(job_id)
            self._jobs[job_id] = job.model_copy(update=state)
            ended = [k for k, j in self._jobs.items() if j.status != "running"]
            for k in ended[:max(0, len(ended) - self.kept)]:
                del self._jobs[k]

    def get(self, job_id: str) -> Job | None:
        """Job ``job_id`` as it stands (None when there is no such job, or it ended before
        the newest ``kept`` ended ones)."""
        with self._lock:
            job = self._jobs.get(job_id)
            return job.model_copy(deep=True) if job is not None else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._jobs)
