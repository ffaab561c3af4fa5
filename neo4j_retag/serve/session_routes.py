"""The page's key routes: /session (is a key needed, is one held), /login (the key checked
once, then a same-site HttpOnly session cookie) and /logout. Not in the OpenAPI: the API's
clients send the key as a bearer header."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from .origin import SESSION_COOKIE, cookie
from .security import authorised
from .service import Service
from .throttle import Throttled


class LoginRequest(BaseModel):
    key: str = Field(max_length=1000)


def add_session_routes(app: FastAPI, service: Service) -> None:
    """/session, /login and /logout on ``app``."""
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


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"
