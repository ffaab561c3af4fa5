"""MCP (the official `mcp` SDK, v2 ``MCPServer``): tools an agent calls - ``ask`` (any method,
``auto`` by default) and one per operation of the table (:mod:`..api.operations`: documents,
topics, reports, text units, stats, jobs; ``ingest`` and ``delete_documents`` with
--allow-writes only), each taking its request model's fields and giving its response model,
as the HTTP route does; resources: the corpus description and each topic. Served on /mcp
(streamable HTTP) by the app, or on stdin/stdout with `serve --mcp-stdio`."""

from __future__ import annotations

import inspect
import json
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
from pydantic import BaseModel, Field, ValidationError

from ..api.corpus import corpus_description, topic_rows
from ..api.operations import OPERATIONS, Operation, invalid
from ..errors import InputError, RetagError
from ..query.ask import ask_model, methods_help
from .clean import check_json
from .served import call
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


def ask_tool(service: Service) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The ``ask`` tool: its parameters are the fields of `ask`'s request model (built from
    the query registry: the methods' enum, each option's type and bounds), ``method``
    defaulting to the settings' ``default_method`` (ASK_METHOD, else the class's default);
    its description lists the methods."""
    model = ask_model(default_method=service.settings.default_method)

    async def ask(**arguments: Any) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            # POST /ask's body, the same JSON as `ask --json` (encoded where it was answered)
            return json.loads(await service.ask_json(model(**arguments)))
        return await _tool(go)

    ask.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                           default=... if f.is_required() else f.default,
                           annotation=Annotated[f.annotation, f])
         for name, f in model.model_fields.items()],
        return_annotation=dict[str, Any])
    ask.__doc__ = (f"Answer a question about the corpus. method: {methods_help()}. level: "
                   "community level (default: the server's). Each option says the methods "
                   "that take it. Returns what POST /ask returns: the answer, its citations "
                   "(report / text unit ids and titles), sources and the trace (method, "
                   "routing, cost, notes, failures).")
    return ask


class RetagMCP(MCPServer):
    """Lists each topic as a resource, read from the graph when asked (topics change)."""

    def __init__(self, service: Service) -> None:
        super().__init__("neo4j-retag", instructions=INSTRUCTIONS)
        self.service = service
        # each tool's request model, the route's: the one place for its fields and bounds
        self.requests: dict[str, type[BaseModel]] = {}

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The SDK's call, its errors made one line, the same as the HTTP route's: arguments
        of the wrong type or shape (the SDK sends pydantic's several lines and a URL),
        control characters in any argument (see serve.clean), an unknown tool. The arguments
        are read by the tool's request model first: the SDK's own reading drops an argument
        the tool does not take, which the route refuses."""
        try:
            check_json(arguments)
        except InputError as err:
            raise ToolError(str(err)) from None
        if (model := self.requests.get(name)) is not None:
            try:
                model.model_validate(arguments)
            except ValidationError as err:
                raise ToolError(invalid(err)) from None
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # logged by the SDK; its message names the tool only
        except ToolError as err:
            if isinstance(err.__cause__, ValidationError):
                raise ToolError(invalid(err.__cause__)) from err.__cause__
            # the SDK's prefix goes: the line is the HTTP route's, word for word
            line = " ".join(str(err).split()).removeprefix(f"Error executing tool {name}: ")
            raise ToolError(line) from err.__cause__

    async def list_resources(self) -> list[MCPResource]:
        """The corpus and one resource per topic; while Neo4j is down an error with the
        reason in one line (the SDK's own would be "Internal server error")."""
        listed = await super().list_resources()
        try:
            topics = await self.service.db(topic_rows, self.service.g)
        except RetagError as err:
            raise MCPError(INTERNAL_ERROR, f"topics could not be listed: {err}") from None
        return listed + [MCPResource(uri=f"retag://topics/{quote(t.name, safe='')}",
                                     name=t.name, description=t.description or "",
                                     mime_type="application/json")
                         for t in topics]


def build_mcp(service: Service) -> RetagMCP:
    mcp = RetagMCP(service)

    mcp.tool(**ONCE)(ask_tool(service))
    mcp.requests["ask"] = ask_model(default_method="auto")

    for op in OPERATIONS.values():
        if service.allow_writes or not op.writes:
            mcp.add_tool(_operation_tool(service, op), name=op.name, description=op.summary,
                         **ONCE)
            mcp.requests[op.name] = op.request

    @mcp.resource("retag://corpus", name="corpus", mime_type="text/plain",
                  description="what the corpus is about (written when topics are built)")
    async def corpus_resource() -> str:
        described = await _resource(lambda: service.db(corpus_description, service.g))
        return described or "(no corpus description yet)"

    @mcp.resource("retag://topics/{name}", name="topic", mime_type="application/json",
                  description="one topic: its name and description")
    async def topic_resource(name: str) -> dict[str, Any]:
        wanted = unquote(name)
        for t in await _resource(lambda: service.db(topic_rows, service.g)):
            if t.name == wanted:
                return t.model_dump()
        raise ResourceNotFoundError(f"no topic {wanted!r}")

    return mcp


def _operation_tool(service: Service, op: Operation) -> Callable[..., Awaitable[Any]]:
    """``op`` as a tool function: its parameters are the request model's fields (types,
    bounds, defaults, descriptions: the tool's input schema), its result the response
    model's JSON. The SDK checks the arguments against those fields and :func:`.served.call`
    against the model itself, with the words an HTTP route gives."""
    params = [inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY,
        default=inspect.Parameter.empty if f.is_required() else f.default,
        annotation=Annotated[(f.annotation, *f.metadata, Field(description=f.description))])
        for name, f in op.request.model_fields.items()]

    async def tool(**arguments: Any) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            return (await call(service, op, arguments)).model_dump(mode="json")
        return await _tool(go)
    tool.__signature__ = inspect.Signature(params, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    tool.__name__ = tool.__qualname__ = op.name
    return tool
