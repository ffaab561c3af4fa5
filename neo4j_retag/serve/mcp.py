"""MCP (the official `mcp` SDK, v2 ``MCPServer``): tools an agent calls - ``ask`` (any method,
``auto`` by default), ``list_topics``, ``list_documents``, ``search_reports`` (BM25),
``get_report`` - and, with --allow-writes only, ``ingest`` and ``delete_documents``;
resources: the corpus description and each topic. Served on /mcp (streamable HTTP) by the
app, or on stdin/stdout with `serve --mcp-stdio`."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar
from urllib.parse import quote, unquote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedToolError,
)
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR
from mcp_types import Resource as MCPResource
from pydantic import Field, ValidationError

from ..errors import InputError, RetagError
from ..index.delete import delete_documents, list_documents
from ..query.ask import ask_model, cost_line, methods_help
from . import corpus
from .clean import INT64, check_json
from .security import inside_root
from .service import Service

T = TypeVar("T")
log = logging.getLogger(__name__)
# every tool's result goes once, as one JSON text block (structured output would send it a
# second time beside the text: two copies of a 40k-character report list)
ONCE = {"structured_output": False}
INSTRUCTIONS = ("Answers questions over one document corpus indexed as a knowledge graph "
                "(GraphRAG + ReTAG on Neo4j). Use `ask` for global questions (main themes, "
                "how the documents connect) as well as specific ones; method `auto` picks.")


async def _tool(fn: Callable[[], Awaitable[T] | T]) -> T:
    """Run a tool body; a RetagError or an invalid input becomes the tool's one-line error
    for the model (the SDK's own would say only "Error executing tool" and log a traceback);
    anything else is logged and named."""
    try:
        out = fn()
        return await out if isinstance(out, Awaitable) else out  # type: ignore[return-value]
    except RetagError as err:
        raise ToolError(str(err)) from None
    except ValidationError as err:
        raise ToolError(invalid(err)) from None
    except Exception as err:
        log.error("MCP tool failed", exc_info=err)
        raise ToolError(f"internal error ({type(err).__name__}); see the server log") from None


async def _resource(fn: Callable[[], Awaitable[T]]) -> T:
    """A resource's read; a RetagError (Neo4j down) becomes its one-line error (the SDK's
    own would say only "Error reading resource")."""
    try:
        return await fn()
    except RetagError as err:
        raise ResourceError(str(err)) from None


def invalid(err: ValidationError) -> str:
    """A validation error as one line: the first problem's field and message (pydantic's
    own is several lines with a URL)."""
    first = err.errors()[0]
    where = ".".join(str(x) for x in first["loc"])
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}" if where else first["msg"] + more


def bounded_k(k: int) -> tuple[int, str | None]:
    """``k`` within 1..MAX_K, and a note when it was not."""
    if 1 <= k <= corpus.MAX_K:
        return k, None
    used = max(1, min(k, corpus.MAX_K))
    return used, f"k={k} is outside 1..{corpus.MAX_K}: {used} used"


def ask_tool(service: Service) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The ``ask`` tool: its parameters are the fields of `ask`'s request model (built from
    the query registry: the methods' enum, each option's type and bounds), ``method``
    defaulting to auto; its description lists the methods."""
    model = ask_model(default_method="auto")

    async def ask(**arguments: Any) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            a = await service.ask(model(**arguments))
            trace = a.trace
            routing = trace.routing.model_dump() if trace.routing else None
            return {"answer": a.answer, "method": trace.method, "routing": routing,
                    "citations": [c.model_dump(include={"kind", "id", "title", "level"})
                                  for c in a.citations],
                    "cost": {"llm": trace.llm.model_dump(),
                             "seconds": trace.seconds.get("total", 0.0),
                             "line": cost_line(a)},
                    "notes": trace.notes,
                    "failures": [f.model_dump() for f in trace.failures]}
        return await _tool(go)

    ask.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                           default=... if f.is_required() else f.default,
                           annotation=Annotated[f.annotation, f])
         for name, f in model.model_fields.items()],
        return_annotation=dict[str, Any])
    ask.__doc__ = (f"Answer a question about the corpus. method: {methods_help()}. level: "
                   "community level (default: the server's). Each option says the methods "
                   "that take it. Returns the answer, its citations (report / text unit ids "
                   "and titles) and the trace's cost.")
    return ask


class RetagMCP(MCPServer):
    """Lists each topic as a resource, read from the graph when asked (topics change)."""

    def __init__(self, service: Service) -> None:
        super().__init__("neo4j-retag", instructions=INSTRUCTIONS)
        self.service = service

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The SDK's call, its errors made one line: arguments of the wrong type or shape
        (the SDK sends pydantic's several lines and a URL), control characters in any
        argument (see serve.clean), an unknown tool."""
        try:
            check_json(arguments)
        except InputError as err:
            raise ToolError(str(err)) from None
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # logged by the SDK; its message names the tool only
        except ToolError as err:
            if isinstance(err.__cause__, ValidationError):
                raise ToolError(invalid(err.__cause__)) from err.__cause__
            raise ToolError(" ".join(str(err).split())) from err.__cause__

    async def list_resources(self) -> list[MCPResource]:
        """The corpus and one resource per topic; while Neo4j is down an error with the
        reason in one line (the SDK's own would be "Internal server error")."""
        listed = await super().list_resources()
        try:
            topics = await self.service.db(corpus.list_topics, self.service.g)
        except RetagError as err:
            raise MCPError(INTERNAL_ERROR, f"topics could not be listed: {err}") from None
        return listed + [MCPResource(uri=f"retag://topics/{quote(t['name'], safe='')}",
                                     name=t["name"], description=t["description"] or "",
                                     mime_type="application/json")
                         for t in topics]


def build_mcp(service: Service) -> RetagMCP:
    mcp = RetagMCP(service)

    mcp.tool(**ONCE)(ask_tool(service))

    def topics() -> dict[str, Any]:
        return {"corpus_description": corpus.corpus_description(service.g),
                "topics": [{k: t[k] for k in ("name", "description")}
                           for t in corpus.list_topics(service.g)]}

    @mcp.tool(**ONCE)
    async def list_topics() -> dict[str, Any]:
        """The corpus description and its topics (name, description)."""
        return await _tool(lambda: service.db(topics))

    @mcp.tool(**ONCE)
    async def list_documents_tool() -> dict[str, Any]:
        """{"documents": every document: id, title, path, text units, entities, ingested
        at}."""
        return await _tool(lambda: service.db(
            lambda: {"documents": list_documents(service.g)}))

    @mcp.tool(**ONCE)
    async def search_reports(query: str, k: int = 10) -> dict[str, Any]:
        """{"reports": the k best community reports for a query by BM25 (id, title, summary,
        level); k is 1 to 50 ("note" says when it was not)}."""
        used, note = bounded_k(k)

        def go() -> dict[str, Any]:
            out: dict[str, Any] = {"reports": corpus.search_reports(service.g, query, used)}
            return {**out, "note": note} if note else out
        return await _tool(lambda: service.db(go))

    @mcp.tool(**ONCE)
    async def get_report(report_id: Annotated[int, Field(ge=INT64[0], le=INT64[1])]
                         ) -> dict[str, Any]:
        """One community report: title, summary, findings, rating and its entities."""
        return await _tool(lambda: service.db(corpus.get_report, service.g, report_id))

    # the SDK names a tool after its function: list_documents would shadow the import
    mcp.remove_tool("list_documents_tool")
    mcp.add_tool(list_documents_tool, name="list_documents", **ONCE)

    if service.allow_writes:
        @mcp.tool(**ONCE)
        async def ingest(paths: list[str], topics: bool = True) -> dict[str, Any]:
            """Index files or folders under the server's SERVE_INGEST_ROOT in the background;
            returns the job (poll GET /jobs/{id})."""
            async def go() -> dict[str, Any]:
                root = service.settings.serve.ingest_root
                checked = [await service.db(inside_root, p, root) for p in paths]
                return service.start_ingest(checked, topics).model_dump()
            return await _tool(go)

        @mcp.tool(name="delete_documents", **ONCE)
        async def delete_documents_tool(ids: list[str]) -> dict[str, Any]:
            """Remove documents (ids or 8+ character id prefixes) and what only they
            support; communities and reports are rebuilt by the next ingest."""
            return await _tool(lambda: service.db(delete_documents, service.g, ids))

    @mcp.resource("retag://corpus", name="corpus", mime_type="text/plain",
                  description="what the corpus is about (written when topics are built)")
    async def corpus_resource() -> str:
        described = await _resource(lambda: service.db(corpus.corpus_description, service.g))
        return described or "(no corpus description yet)"

    @mcp.resource("retag://topics/{name}", name="topic", mime_type="application/json",
                  description="one topic: its name and description")
    async def topic_resource(name: str) -> dict[str, Any]:
        wanted = unquote(name)
        for t in await _resource(lambda: service.db(corpus.list_topics, service.g)):
            if t["name"] == wanted:
                return {"name": t["name"], "description": t["description"]}
        raise ResourceNotFoundError(f"no topic {wanted!r}")

    return mcp
