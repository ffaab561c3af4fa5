"""The ingest jobs a `serve` process knows of: each job's state (progress by stage, then its
result or error), written by the thread that follows the job and read by the routes. A
long-lived server keeps every running job and the newest ``kept`` ended ones (``GET
/jobs/{id}`` of an older one is a 404), so its memory does not grow with every ingest."""

from __future__ import annotations

import copy
import threading
import uuid
from pathlib import Path
from typing import Any

KEPT = 100  # ended jobs kept for GET /jobs/{id}


class Jobs:
    """Thread-safe: the job's thread writes, the server's loop reads."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._jobs: dict[str, dict[str, Any]] = {}  # insertion order: oldest first
        self._lock = threading.Lock()

    def new(self, paths: list[Path]) -> dict[str, Any]:
        """A running job for ``paths`` (a copy of its state): ``{id, status: "running",
        paths, progress: {}, result: None, error: None}``."""
        job: dict[str, Any] = {"id": uuid.uuid4().hex[:12], "status": "running",
                               "paths": [str(p) for p in paths], "progress": {},
                               "result": None, "error": None}
        with self._lock:
            self._jobs[job["id"]] = job
            self._prune()
            return copy.deepcopy(job)

    def progress(self, job_id: str, task: str, n: int, total: int | None = None) -> None:
        """``n`` more items of stage ``task`` done (of ``total``, when known)."""
        with self._lock:
            job = self._jobs[job_id]
            done, known = job["progress"].get(task, [0, None])
            job["progress"][task] = [done + n, total if total is not None else known]

    def end(self, job_id: str, state: dict[str, Any]) -> None:
        """The job ended: ``state`` holds its status and its result or error."""
        with self._lock:
            self._jobs[job_id].update(state)
            self._prune()

    def get(self, job_id: str) -> dict[str, Any] | None:
        """A copy of job ``job_id`` as it stands (None when there is no such job, or it
        ended longer ago than the newest ``kept`` ended ones)."""
        with self._lock:
            job = self._jobs.get(job_id)
            return copy.deepcopy(job) if job is not None else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._jobs)

    def _prune(self) -> None:
        ended = [k for k, j in self._jobs.items() if j["status"] != "running"]
        for k in ended[:max(0, len(ended) - self.kept)]:
            del self._jobs[k]
