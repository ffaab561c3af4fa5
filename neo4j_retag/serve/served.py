"""An operation of the table (:mod:`..api.operations`) called by a front end of this process:
the write check, the request's model, the run on a worker thread. The HTTP routes and the
MCP tools both call :func:`call`, so they refuse and answer alike."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..api.documents import IngestRequest, Job
from ..api.operations import Operation, parse
from ..db import Graph
from .replies import WritesOffError
from .security import inside_root
from .service import Service


class Served:
    """The operations' context in a `serve` process (``api.operations.Context``)."""

    def __init__(self, service: Service) -> None:
        self.service = service

    @property
    def graph(self) -> Graph:
        return self.service.g

    def start_ingest(self, req: IngestRequest) -> Job:
        """The job for ``req.paths``, each checked under SERVE_INGEST_ROOT first (on the
        worker thread: the check walks folders). Raises InputError for a path outside."""
        root = self.service.settings.serve.ingest_root
        return self.service.start_ingest([inside_root(p, root) for p in req.paths],
                                         topics=req.topics)

    def job(self, job_id: str) -> Job | None:
        return self.service.job(job_id)

    def serve_state(self) -> dict[str, Any] | None:
        return self.service.gate.as_dict()


async def call(service: Service, op: Operation, raw: dict[str, Any]) -> BaseModel:
    """``op`` on ``raw`` (path, query or body fields; a tool's arguments). Raises
    WritesOffError for a write without --allow-writes, InvalidRequest, and what the
    operation raises (NotFoundError, InputError, DatabaseUnreachable ...)."""
    if op.writes and not service.allow_writes:
        raise WritesOffError
    req = parse(op, raw)
    return await service.db(op.run, Served(service), req)
