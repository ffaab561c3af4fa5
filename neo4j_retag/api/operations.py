"""The table of operations: each one's name (the MCP tool's), its HTTP route, its typed
request (bounds included) and response, whether it writes, and the function that runs it.
`serve` makes its HTTP routes and MCP tools from this table (:mod:`..serve.routes`,
:mod:`..serve.mcp`), so both give the same shape and the same bad input the same error
(:func:`parse`); the CLI calls the same functions. ``ask`` and ``ask/stream`` are the query
side's (``serve.answer``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from ..db import Graph
from ..errors import InputError, NotFoundError
from . import corpus, documents
from .corpus import NoRequest
from .documents import IngestRequest, Job, JobRef
from .stats import Stats, stats


class Context(Protocol):
    """What an operation runs against: the graph and, in a `serve` process, its ingest jobs
    and question gate."""

    @property
    def graph(self) -> Graph: ...

    def start_ingest(self, req: IngestRequest) -> Job: ...

    def job(self, job_id: str) -> Job | None: ...

    def serve_state(self) -> dict[str, Any] | None: ...


@dataclass
class Local:
    """The context of a command run on its own (the CLI): the graph, no jobs, no gate."""

    graph: Graph

    def start_ingest(self, req: IngestRequest) -> Job:
        raise InputError("an ingest job needs `neo4j-retag serve`: run `neo4j-retag ingest`")

    def job(self, job_id: str) -> Job | None:
        return None

    def serve_state(self) -> dict[str, Any] | None:
        return None


class InvalidRequest(InputError):
    """A request its model refuses: the first problem in one line (HTTP 422, MCP's tool
    error)."""


@dataclass(frozen=True)
class Operation:
    name: str  # the MCP tool's
    http: str  # "GET /path/{field}": path fields by name, the others query (GET) or body
    request: type[BaseModel]
    response: type[BaseModel]
    run: Callable[[Context, Any], BaseModel]
    summary: str
    writes: bool = False
    status: int = 200

    @property
    def method(self) -> str:
        return self.http.split()[0]

    @property
    def path(self) -> str:
        return self.http.split()[1]


def invalid(err: ValidationError) -> str:
    """A validation error as one line: the first problem's field and message (pydantic's
    own is several lines with a URL)."""
    first = err.errors()[0]
    where = ".".join(str(x) for x in first["loc"])
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}" if where else first["msg"] + more


def parse(op: Operation, raw: dict[str, Any]) -> BaseModel:
    """``raw`` as ``op``'s request. Raises InvalidRequest (one line) when its model refuses
    it: the same words whichever front end sent it."""
    try:
        return op.request.model_validate(raw)
    except ValidationError as err:
        raise InvalidRequest(invalid(err)) from None


def _job(ctx: Context, req: JobRef) -> Job:
    if (found := ctx.job(req.job_id)) is None:
        raise NotFoundError(f"no job {req.job_id}")
    return found


def _stats(ctx: Context, req: NoRequest) -> Stats:
    return stats(ctx.graph).model_copy(update={"serve": ctx.serve_state()})


def _on_graph(fn: Callable[[Graph, Any], BaseModel]) -> Callable[[Context, Any], BaseModel]:
    return lambda ctx, req: fn(ctx.graph, req)


OPERATIONS: dict[str, Operation] = {op.name: op for op in [
    Operation("list_documents", "GET /documents", NoRequest, documents.Documents,
              _on_graph(documents.list_documents),
              "Every document: id, title, path, text units, entities, when it was ingested."),
    Operation("delete_documents", "POST /documents/delete", documents.DeleteDocuments,
              documents.Deleted, _on_graph(documents.delete_documents),
              "Remove documents (ids, 8+ character id prefixes or paths) and what only they "
              "support; communities and reports are rebuilt by the next ingest.", writes=True),
    Operation("ingest", "POST /ingest", IngestRequest, Job,
              lambda ctx, req: ctx.start_ingest(req),
              "Index files or folders under the server's SERVE_INGEST_ROOT in the background; "
              "returns the job (follow it with get_job).", writes=True, status=202),
    Operation("get_job", "GET /jobs/{job_id}", JobRef, Job, _job,
              "An ingest job as it stands: status, progress by stage, then its result or "
              "error."),
    Operation("stats", "GET /stats", NoRequest, Stats, _stats,
              "What the graph holds per level and topic, and the LLM calls and tokens spent "
              "so far by stage."),
    Operation("list_topics", "GET /topics", NoRequest, corpus.Topics,
              _on_graph(corpus.list_topics),
              "The corpus description and its topics (name, description)."),
    Operation("search_reports", "GET /reports/search", corpus.SearchReports, corpus.ReportHits,
              _on_graph(corpus.search_reports),
              f"The k best community reports for a query by BM25 (id, title, summary, level, "
              f"score); k is 1 to {corpus.MAX_K}."),
    Operation("get_report", "GET /reports/{report_id}", corpus.ReportRef, corpus.Report,
              _on_graph(corpus.get_report),
              "One community report: title, summary, level, rating, findings and its "
              "entities."),
    Operation("get_text_unit", "GET /text-units/{unit_id}", corpus.TextUnitRef,
              corpus.TextUnit, _on_graph(corpus.get_text_unit),
              "One text unit (a citation of kind text_unit) with its document."),
]}
