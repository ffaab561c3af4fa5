"""The HTTP API (FastAPI; OpenAPI at /docs): /ask and /ask/stream, documents, ingest jobs,
stats, health, the page at / and MCP on /mcp. Errors are JSON with the CLI's one-line
message (``{"error": "..."}``), never a traceback."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from html import escape
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, Query, Request
from fastapi import Path as FastPath
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, Field
from sse_starlette.sse import EventSourceResponse
from starlette.exceptions import HTTPException

from .. import events
from ..errors import NotFoundError, RetagError
from ..index.delete import delete_documents, list_documents
from ..ops.stats import collect
from ..query.ask import ask_model
from . import corpus
from .clean import INT64
from .headers import SecurityHeaders
from .origin import SESSION_COOKIE, Allowed, cookie
from .replies import Contained, WritesOffError, error_response
from .security import Guard, authorised, inside_root
from .service import Service
from .throttle import Throttled

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
PAGE = Path(__file__).with_name("page")


class Encoded(str):
    """An event's data that is JSON already (the answer, encoded on its question's loop)."""


class IngestRequest(BaseModel):
    paths: list[str] = Field(min_length=1, max_length=100,
                             description="files or folders under SERVE_INGEST_ROOT")
    topics: bool = True


class LoginRequest(BaseModel):
    key: str = Field(max_length=1000)


def create_app(service: Service, host: str = "127.0.0.1") -> FastAPI:
    """The app around ``service`` (started and stopped by the app's lifespan). The /ask
    request model (OpenAPI: the methods' enum, every option's bounds) and the page's methods
    are built from the query registry; ``method`` defaults to auto here."""
    from .mcp import build_mcp
    serve_ask = ask_model(default_method="auto")
    page_html = page_with_methods()
    mcp = build_mcp(service)
    # the SDK's own Host/Origin check is off: the Guard checks every route, /mcp included,
    # against one list (the SDK's would refuse the names SERVE_ALLOWED_HOSTS adds)
    mcp_http = mcp.streamable_http_app(
        streamable_http_path="/mcp", host=host,
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
    app.add_exception_handler(RetagError, lambda request, err: error_response(err))
    app.add_middleware(Contained)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"] if x != "body") or "body"
        return JSONResponse({"error": f"{where}: {first['msg']}"}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        # Starlette's own (no such route, a method not allowed, an unreadable body): the
        # same {"error": ...} shape as every other error, not {"detail": ...}
        return JSONResponse({"error": f"{err.detail}"}, status_code=err.status_code,
                            headers=err.headers)

    def writes() -> None:
        if not service.allow_writes:
            raise WritesOffError

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(page_html)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        """``ok``, or ``degraded`` with the reason per check (Neo4j, the LLM endpoint)."""
        return await service.health.report()

    @app.get("/session", include_in_schema=False)
    async def session(request: Request) -> dict[str, Any]:
        """What the page needs before it asks: whether a key is required, and held."""
        key, header = service.settings.serve.key(), request.headers.get("authorization")
        signed_in = key is None or service.sessions.valid(cookie(request.headers.get("cookie")))
        if not signed_in and header is not None:
            with suppress(Throttled):  # a key check like the others: no side door
                signed_in = service.throttle.check(_client(request),
                                                   lambda: authorised(header, key))
        return {"key_required": key is not None, "signed_in": signed_in}

    @app.post("/login", include_in_schema=False)
    async def login(body: LoginRequest, request: Request) -> Response:
        """The page's login: the key checked once, then a same-site HttpOnly session cookie
        (the key itself stays out of the page's storage and out of URLs)."""
        key = service.settings.serve.key()
        if key is None:
            return JSONResponse({"signed_in": True})
        try:  # the same throttle as the bearer key's: guesses here count there too
            right = service.throttle.check(_client(request),
                                           lambda: authorised(f"Bearer {body.key}", key))
        except Throttled as err:
            return JSONResponse({"error": str(err)}, status_code=429,
                                headers={"Retry-After": str(err.retry_after)})
        if not right:
            return JSONResponse({"error": "wrong API key"}, status_code=401)
        resp = JSONResponse({"signed_in": True})
        resp.set_cookie(SESSION_COOKIE, service.sessions.open(), httponly=True,
                        samesite="strict", secure=request.url.scheme == "https", path="/")
        return resp

    @app.post("/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        service.sessions.close(cookie(request.headers.get("cookie")))
        resp = JSONResponse({"signed_in": False})
        resp.delete_cookie(SESSION_COOKIE, path="/")
        return resp

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

    @app.get("/documents")
    async def documents() -> list[dict[str, Any]]:
        return await service.db(list_documents, service.g)

    @app.delete("/documents/{doc_id}")
    async def delete_document(doc_id: str) -> dict[str, Any]:
        writes()
        return await service.db(delete_documents, service.g, [doc_id])

    @app.post("/ingest", status_code=202)
    async def ingest(body: IngestRequest) -> dict[str, Any]:
        writes()
        root = service.settings.serve.ingest_root
        paths = [await service.db(inside_root, p, root) for p in body.paths]  # walks: a thread
        return service.start_ingest(paths, topics=body.topics).model_dump()

    @app.get("/jobs/{job_id}")
    async def job(job_id: str) -> dict[str, Any]:
        if (found := service.job(job_id)) is None:
            raise NotFoundError(f"no job {job_id}")
        return found.model_dump()

    @app.get("/stats")
    async def stats() -> dict[str, Any]:
        return {**await service.db(collect, service.g), "serve": service.gate.as_dict()}

    @app.get("/topics")
    async def topics() -> dict[str, Any]:
        return {"corpus_description": await service.db(corpus.corpus_description, service.g),
                "topics": await service.db(corpus.list_topics, service.g)}

    @app.get("/reports/search")
    async def search(q: str, k: int = Query(10, ge=1, le=corpus.MAX_K)) -> list[dict[str, Any]]:
        return await service.db(corpus.search_reports, service.g, q, k)

    @app.get("/reports/{report_id}")
    async def report(report_id: Annotated[int, FastPath(ge=INT64[0], le=INT64[1])]
                     ) -> dict[str, Any]:
        return await service.db(corpus.get_report, service.g, report_id)

    @app.get("/text-units/{unit_id}")
    async def text_unit(unit_id: str) -> dict[str, Any]:
        return await service.db(corpus.get_text_unit, service.g, unit_id)

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


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def with_guard(app: FastAPI, service: Service, host: str, port: int) -> SecurityHeaders:
    """``app`` behind the Host/Origin allow-list (for ``host``:``port``, the bound address),
    CORS when SERVE_CORS is on, the API key or a page session, the body cap and the control
    character check, every response with the security headers (:mod:`.headers`)."""
    api = service.settings.serve
    return SecurityHeaders(Guard(app, allowed=Allowed(host, port, api), key=api.key(),
                                 sessions=service.sessions, max_body=api.max_body,
                                 cors=api.cors, throttle=service.throttle))
