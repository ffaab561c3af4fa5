"""Safe by default: loopback unless a long key is set, a bearer key compared in constant time
with guessing throttled, request bodies capped, control characters refused, and ingest paths
kept under one root (no `..`, no symlink escape)."""

from __future__ import annotations

import hmac
import json
import logging
from pathlib import Path
from typing import Any

from ..config import ServeSettings
from ..errors import ConfigError, InputError
from .clean import check, check_request
from .origin import Allowed, Sessions, cookie
from .throttle import Throttle, Throttled

Scope = dict[str, Any]
log = logging.getLogger(__name__)
MIN_KEY_CHARS = 32  # beyond loopback: ~190 bits as token_urlsafe(24) makes them
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
# without the key: a load balancer's probe, the page (static; it asks for the key) and its
# login
OPEN_PATHS = ("/health", "/", "/session", "/login", "/logout", "/favicon.ico")


class TooLargeError(InputError):
    """A request body over SERVE_MAX_BODY (413)."""


def check_bind(host: str, api: ServeSettings) -> None:
    """Refuse to serve beyond loopback without SERVE_API_KEY or with one shorter than
    MIN_KEY_CHARS, and anywhere with a key no client can send in a header (a space or a
    character outside printable ASCII). A short key on loopback is served, with a warning.
    Raises ConfigError."""
    key = api.key()
    if key is not None and not all("!" <= ch <= "~" for ch in key):
        raise ConfigError("SERVE_API_KEY holds a space or a character outside printable "
                          "ASCII: no client could send it in an Authorization header")
    local = host in LOCAL_HOSTS
    if not local and key is None:
        raise ConfigError(f"refusing to listen on {host} without SERVE_API_KEY: anyone who can "
                          "reach it could use the LLM and read the corpus (set SERVE_API_KEY, "
                          "or bind 127.0.0.1)")
    if key is not None and len(key) < MIN_KEY_CHARS:
        hint = ("make one with `python -c 'import secrets; print(secrets.token_urlsafe(32))'`")
        if not local:
            raise ConfigError(f"refusing to listen on {host} with a SERVE_API_KEY of {len(key)} "
                              f"characters: at least {MIN_KEY_CHARS} off loopback ({hint})")
        log.warning("SERVE_API_KEY has %d characters: enough on loopback, refused on any "
                    "other address (at least %d; %s)", len(key), MIN_KEY_CHARS, hint)


def authorised(header: str | None, key: str) -> bool:
    """``Authorization: Bearer <key>``, compared in constant time."""
    scheme, _, token = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(),
                                                               key.encode())


def inside_root(given: str, root: Path | None) -> Path:
    """``given`` (relative to ``root``, or absolute) as a real path inside ``root``. For a
    folder every file under it must be inside too (a link may lead out). The root check
    comes before any walk, and a path outside the root and a missing one get the same
    message (a client learns nothing about files beyond the root). Blocking (a walk): call
    it in a worker thread. Raises InputError otherwise."""
    if root is None:
        raise InputError("ingest over HTTP is off: set SERVE_INGEST_ROOT to the folder it may "
                         "read")
    shown = repr(given if len(given) <= 200 else given[:200] + "...")  # one short line
    check(given, f"path {shown}", frozenset())  # a NUL would reach the file system
    if ".." in Path(given).parts:
        raise InputError(f"path {shown}: '..' is not allowed")
    real_root = root.resolve()
    missing = InputError(f"path {shown} is not a file or folder under the ingest root "
                         "(SERVE_INGEST_ROOT)")
    try:  # a name too long, a loop of links: the same answer as a missing path
        real = (Path(given) if Path(given).is_absolute() else real_root / given).resolve()
        if not real.is_relative_to(real_root) or not real.exists():
            raise missing
        escapes = real.is_dir() and any(not p.resolve().is_relative_to(real_root)
                                        for p in real.rglob("*"))
    except OSError:
        raise missing from None
    if escapes:
        raise InputError(f"path {shown} holds a link that leads outside the ingest root "
                         "(SERVE_INGEST_ROOT)")
    return real


async def send_error(send: Any, status: int, message: str,
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware in front of everything (the API, the page, /mcp), in this order: the
    Host and Origin allow-list (421 / 403), then CORS when SERVE_CORS is on (preflights end
    there), the API key when one is set (a bearer header, or the page's session cookie;
    wrong keys throttled: 429), the body cap (the declared length, and the bytes that
    actually arrive, chunked or not), and control characters (400; see :mod:`.clean`)."""

    def __init__(self, app: Any, *, allowed: Allowed, key: str | None, sessions: Sessions,
                 max_body: int, cors: bool = False, throttle: Throttle | None = None) -> None:
        self.allowed, self.key, self.sessions, self.max_body = allowed, key, sessions, max_body
        self.throttle = throttle or Throttle()
        self.app = app
        self.inner: Any = self._checked
        if cors:
            from starlette.middleware.cors import CORSMiddleware
            self.inner = CORSMiddleware(
                self._checked, allow_origins=allowed.cors_origins(),
                allow_methods=["GET", "POST", "DELETE"],
                allow_headers=["authorization", "content-type", "mcp-session-id",
                               "mcp-protocol-version", "last-event-id"],
                expose_headers=["mcp-session-id", "retry-after"])

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        refused = self._foreign(headers)
        if refused is not None:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await send_error(send, *refused)
            return
        await self.inner(scope, receive, send)

    def _foreign(self, headers: dict[str, str]) -> tuple[int, str] | None:
        host, origin = headers.get("host"), headers.get("origin")
        if not self.allowed.host_ok(host):
            return 421, (f"Host {host!r} is not served here (the bound loopback names; add it "
                         "to SERVE_ALLOWED_HOSTS)")
        if not self.allowed.origin_ok(origin):
            return 403, (f"Origin {origin!r} may not call this server (add it to "
                         "SERVE_ALLOWED_ORIGINS)")
        return None

    def key_ok(self, scope: Scope, header: str | None) -> bool:
        """``header`` (``Bearer <key>``) is the key, checked through the throttle for the
        request's client. Raises Throttled (not checked: too many wrong keys)."""
        assert self.key is not None
        key, client = self.key, (scope.get("client") or ("?",))[0]
        return self.throttle.check(client, lambda: authorised(header, key))

    async def _checked(self, scope: Scope, receive: Any, send: Any) -> None:
        headers = _headers(scope)
        path = scope["path"]
        if self.key and not _open(path) and not self.sessions.valid(
                cookie(headers.get("cookie"))):
            refused = self._unauthorised(scope, headers.get("authorization"))
            if refused is not None:
                await send_error(send, *refused)
                return
        declared = headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_body:
            await send_error(send, 413, f"request body over {self.max_body} bytes")
            return
        body = None
        if scope["type"] == "http" and scope.get("method") in ("POST", "PUT", "PATCH",
                                                                  "DELETE"):
            # read the whole body first (it is small: max_body): a chunked body over the cap
            # is a 413 before the app parses anything
            first = await _read_body(receive, self.max_body)
            if first is None:
                await send_error(send, 413, f"request body over {self.max_body} bytes")
                return
            if first["type"] != "http.request":
                return  # the client left before its body was complete: nobody to answer
            receive = _replay(first, receive)
            # MCP's own arguments are checked per tool (an MCP error, not an HTTP 400)
            body = None if path == "/mcp" else first["body"]
        try:
            check_request(path, scope.get("query_string", b""), body)
        except InputError as err:
            await send_error(send, 400, str(err))
            return
        await self.app(scope, receive, send)

    def _unauthorised(self, scope: Scope, header: str | None) -> tuple[Any, ...] | None:
        """Why a request without a valid session may not pass (401, or 429 when its key may
        not be checked yet), or None when its bearer key is right."""
        if header is None:  # no key at all is no guess: not counted
            return (401, "missing API key (Authorization: Bearer ..., or log in on the page "
                    "at /)", [(b"www-authenticate", b"Bearer")])
        try:
            if self.key_ok(scope, header):
                return None
        except Throttled as err:
            return 429, str(err), [(b"retry-after", str(err.retry_after).encode())]
        return (401, "wrong API key (Authorization: Bearer ..., or log in on the page at /)",
                [(b"www-authenticate", b"Bearer")])


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1")
            for k, v in scope.get("headers", [])}


def _open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith("/page/")


async def _read_body(receive: Any, cap: int) -> dict[str, Any] | None:
    """The request body as one message (or the disconnect that cut it); None over ``cap``."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return message
        body = message.get("body", b"")
        size += len(body)
        if size > cap:
            return None
        chunks.append(body)
        if not message.get("more_body"):
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}


def _replay(first: dict[str, Any], receive: Any) -> Any:
    sent = False

    async def again() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return first
        return await receive()  # then the disconnect, when the client leaves

    return again
