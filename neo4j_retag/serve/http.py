"""The HTTP API (FastAPI; OpenAPI at /docs): /ask and /ask/stream, the routes of the
operations' table (documents, ingest jobs, stats, topics, reports, text units: :mod:`.routes`),
health, the page at / with its key routes (:mod:`.session_routes`) and MCP on /mcp. Errors
are JSON with the CLI's one-line message (``{"error": "..."}``), never a traceback."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from html import escape
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel
from sse_starlette.sse import EventSourceResponse

from .. import events
from ..query.ask import ask_model
from .headers import SecurityHeaders
from .origin import Allowed
from .replies import add_error_handlers, error_response
from .routes import add_operation_routes
from .security import Guard
from .service import Service
from .session_routes import add_session_routes

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
PAGE = Path(__file__).with_name("page")


class Encoded(str):
    """An event's data that is JSON already (the answer, encoded on its question's loop)."""


def create_app(service: Service, host: str = "127.0.0.1") -> FastAPI:
    """The app around ``service`` (started and stopped by the app's lifespan). The /ask
    request model (OpenAPI: the methods' enum, every option's bounds) and the page's methods
    are built from the query registry; ``method`` defaults to the settings'
    ``default_method`` (ASK_METHOD, else the model class's default), as `ask`'s."""
    from .mcp import build_mcp
    serve_ask = ask_model(default_method=service.settings.default_method)
    page_html = page_with_methods()
    mcp = build_mcp(service)
    api = service.settings.serve
    # the SDK's own Host/Origin check is off: the Guard checks every route, /mcp included,
    # against one list (the SDK's would refuse the names SERVE_ALLOWED_HOSTS adds). Sessions
    # are bounded (each holds a task and its streams): SERVE_MCP_SESSIONS at once, each
    # closed after SERVE_MCP_IDLE seconds without a request in flight (an open GET stream is
    # one: a connected client keeps its session)
    mcp_http = mcp.streamable_http_app(
        streamable_http_path="/mcp", host=host, max_sessions=api.mcp_sessions,
        session_idle_timeout=api.mcp_idle,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            await service.stop()

    app = FastAPI(title="neo4j-retag", lifespan=lifespan, description="GraphRAG + ReTAG "
                  "global sensemaking over a corpus: ask, stream, documents, MCP on /mcp.")
    app.router.routes.extend(mcp_http.routes)  # /mcp exactly (a Mount would redirect /mcp)
    app.mount("/page", StaticFiles(directory=PAGE), name="page")
    add_error_handlers(app)

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(page_html)

    add_session_routes(app, service)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """``ok``, or ``degraded`` with the reason per check (Neo4j, the LLM endpoint)."""
        return await service.health.report()

    @app.post("/ask")
    @_body(serve_ask)
    async def ask(body: Any, request: Request) -> Response:
        """The same fields as `ask --json` (method defaults to auto), the same JSON out."""
        service.gate.admit()
        task = asyncio.create_task(service.ask_json(body, admitted=True))
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=0.5)
                if not task.done() and await request.is_disconnected():
                    task.cancel()  # the client left: its LLM calls stop with the task
                    return Response(status_code=499)
        except asyncio.CancelledError:
            task.cancel()  # the server stopping: the question goes with the handler
            raise
        # encoded on the question's loop already: nothing heavy on this one
        return Response(task.result(), media_type="application/json")

    @app.post("/ask/stream")
    @_body(serve_ask)
    async def ask_stream(body: Any) -> EventSourceResponse:
        """Server-sent events: classified, topic, keywords, retrieved, map (batch k of n),
        reduce, token (the answer piece by piece; text null = start over), then answer (the
        JSON of /ask) or error."""
        service.gate.admit()
        queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()

        async def work() -> None:
            try:
                # encoded on the question's loop (see Service.ask_json)
                queue.put_nowait(("answer", Encoded(await service.ask_json(body, admitted=True))))
            except Exception as err:  # noqa: BLE001 - reported to the client as one line
                resp = error_response(err)
                queue.put_nowait(("error", json.loads(resp.body)))
            finally:
                queue.put_nowait(None)

        loop = asyncio.get_running_loop()

        def listen(kind: str, data: Any) -> None:  # called on the questions' loop's thread
            loop.call_soon_threadsafe(queue.put_nowait, (kind, data))

        with events.listening(listen):
            task = asyncio.create_task(work())

        async def stream() -> AsyncIterator[dict[str, str]]:
            try:
                while (item := await queue.get()) is not None:
                    kind, data = item
                    yield {"event": kind, "data": data if isinstance(data, Encoded)
                           else json.dumps(data, default=str)}
            finally:
                if not task.done():
                    task.cancel()  # the client disconnected mid-stream: stop its LLM calls

        return EventSourceResponse(stream(), ping=15)

    add_operation_routes(app, service)
    return app


def _body(model: type[BaseModel]) -> Callable[[F], F]:
    """The route's ``body`` typed with ``model``, a class built at startup (FastAPI reads the
    annotation; a name local to create_app is not one it can resolve)."""
    def typed(fn: F) -> F:
        fn.__annotations__["body"] = model
        return fn
    return typed


def page_with_methods() -> str:
    """The page with the method list of the query registry (auto first: serve's default),
    each option's title its help line."""
    from ..query import METHODS
    names = ["auto", *(n for n in METHODS if n != "auto")]
    options = "\n".join(
        f'            <option value="{escape(n)}" title="{escape(METHODS[n].help)}"'
        + (" selected" if n == "auto" else "") + f">{escape(n)}</option>" for n in names)
    return (PAGE / "index.html").read_text().replace("<!-- methods -->", options.strip())


def with_guard(app: FastAPI, service: Service, host: str, port: int) -> SecurityHeaders:
    """``app`` behind the Host/Origin allow-list (for ``host``:``port``, the bound address),
    CORS when SERVE_CORS is on, the API key or a page session, the body cap and the control
    character check, every response with the security headers (:mod:`.headers`)."""
    api = service.settings.serve
    return SecurityHeaders(Guard(app, allowed=Allowed(host, port, api), key=api.key(),
                                 sessions=service.sessions, max_body=api.max_body,
                                 cors=api.cors, throttle=service.throttle))
