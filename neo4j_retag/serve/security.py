"""Safe by default: loopback unless a key is set, a bearer key compared in constant time,
request bodies capped, and ingest paths kept under one root (no `..`, no symlink escape)."""

from __future__ import annotations

import hmac
import json
from pathlib import Path
from typing import Any

from ..config import ApiSettings
from ..errors import ConfigError, InputError

Scope = dict[str, Any]
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
OPEN_PATHS = ("/health",)  # what a load balancer may probe without the key


class TooLargeError(InputError):
    """A request body over SERVE_MAX_BODY (413)."""


def check_bind(host: str, api: ApiSettings) -> None:
    """Refuse to serve beyond loopback without SERVE_API_KEY. Raises ConfigError."""
    if host not in LOCAL_HOSTS and api.key() is None:
        raise ConfigError(f"refusing to listen on {host} without SERVE_API_KEY: anyone who can "
                          "reach it could use the LLM and read the corpus (set SERVE_API_KEY, "
                          "or bind 127.0.0.1)")


def authorised(header: str | None, key: str) -> bool:
    """``Authorization: Bearer <key>``, compared in constant time."""
    scheme, _, token = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(),
                                                               key.encode())


def inside_root(given: str, root: Path | None) -> Path:
    """``given`` (relative to ``root``, or absolute) as a real path inside ``root``. For a
    folder every file under it must be inside too. Raises InputError otherwise."""
    if root is None:
        raise InputError("ingest over HTTP is off: set SERVE_INGEST_ROOT to the folder it may "
                         "read")
    if ".." in Path(given).parts:
        raise InputError(f"path {given!r}: '..' is not allowed")
    real_root = root.resolve()
    path = Path(given) if Path(given).is_absolute() else real_root / given
    if not path.exists():
        raise InputError(f"path {given!r} does not exist under the ingest root")
    real = path.resolve()
    files = [real] + ([p.resolve() for p in real.rglob("*")] if real.is_dir() else [])
    if any(not f.is_relative_to(real_root) for f in files):
        raise InputError(f"path {given!r} is outside the ingest root (SERVE_INGEST_ROOT)")
    return real


async def send_error(send: Any, status: int, message: str,
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware in front of everything (the API, the page, /mcp): the bearer key when
    one is set, and the body cap (declared length, and the bytes that actually arrive)."""

    def __init__(self, app: Any, key: str | None, max_body: int) -> None:
        self.app, self.key, self.max_body = app, key, max_body

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
        if self.key and scope["path"] not in OPEN_PATHS and not authorised(
                headers.get("authorization"), self.key):
            await send_error(send, 401, "missing or wrong API key (Authorization: Bearer ...)",
                             [(b"www-authenticate", b"Bearer")])
            return
        declared = headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_body:
            await send_error(send, 413, f"request body over {self.max_body} bytes")
            return
        seen = 0

        async def capped() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise TooLargeError(f"request body over {self.max_body} bytes")
            return message

        await self.app(scope, capped, send)
