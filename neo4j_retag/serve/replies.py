"""How a failure becomes a response: the HTTP status of each error kind and its one-line JSON
(``{"error": "..."}``); anything unexpected is a 500 naming the exception's class, its
traceback only in the server log."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from ..api.operations import InvalidRequest
from ..errors import (
    ConfigError,
    InputError,
    LevelError,
    LLMError,
    NotFoundError,
    QueryTimeout,
    RetagError,
)
from .gate import BusyError
from .security import TooLargeError

log = logging.getLogger(__name__)


class WritesOffError(RetagError):
    """A write while `serve` runs without --allow-writes (403)."""

    def __init__(self) -> None:
        super().__init__("writes are off: start `neo4j-retag serve --allow-writes`")


STATUS: list[tuple[type[Exception], int]] = [
    (BusyError, 429), (TooLargeError, 413), (WritesOffError, 403), (NotFoundError, 404),
    (InvalidRequest, 422), (InputError, 400),
    (LevelError, 400), (QueryTimeout, 504), (ConfigError, 503), (LLMError, 502), (RetagError, 500)]


def error_response(err: Exception) -> JSONResponse:
    status = next((s for cls, s in STATUS if isinstance(err, cls)), 500)
    if status == 500 and not isinstance(err, RetagError):
        log.error("internal error", exc_info=err)  # the log keeps it; the client gets one line
        return JSONResponse({"error": f"internal error ({type(err).__name__}); see the "
                             "server log"}, status_code=500)
    headers = {"Retry-After": str(err.retry_after)} if isinstance(err, BusyError) else None
    return JSONResponse({"error": str(err)}, status_code=status, headers=headers)


class Contained:
    """Inside the app: an exception no handler took becomes :func:`error_response` here.
    Starlette's handler for ``Exception`` answers and then raises it again, so uvicorn
    logged a second traceback and closed the connection (the client's next request on it
    was reset)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        started = False

        async def watched(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as err:
            if started or scope["type"] != "http":
                raise  # mid-response: only closing the connection tells the client
            await error_response(err)(scope, receive, send)


def add_error_handlers(app: FastAPI) -> None:
    """Every error of ``app`` as ``{"error": one line}`` with its status: a RetagError by
    :data:`STATUS`, FastAPI's validation (a 422 naming the field), Starlette's own (no such
    route, a method not allowed: not ``{"detail": ...}``), anything else a 500."""
    app.add_exception_handler(RetagError, lambda request, err: error_response(err))
    app.add_middleware(Contained)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        # the words of api.operations.invalid, which MCP's tools give
        errors = err.errors()
        where = ".".join(str(x) for x in errors[0]["loc"] if x != "body") or "body"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return JSONResponse({"error": f"{where}: {errors[0]['msg']}{more}"}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        return JSONResponse({"error": f"{err.detail}"}, status_code=err.status_code,
                            headers=err.headers)
