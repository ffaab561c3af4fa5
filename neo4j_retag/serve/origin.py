"""Who may talk to `serve` from a browser: a Host and Origin allow-list on every route (DNS
rebinding: a page on evil.example whose name resolves to 127.0.0.1 reaches a loopback server
with ``Host: evil.example``; a page anywhere can POST to it with its own ``Origin``), and the
login sessions of the page when SERVE_API_KEY is set (a browser cannot send a bearer header
when it opens a page; it sends a same-site HttpOnly cookie)."""

from __future__ import annotations

import secrets
import time
from urllib.parse import urlsplit

from ..config import ServeSettings

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
SESSION_COOKIE = "retag_session"
SESSION_SECONDS = 12 * 3600


def _items(value: str) -> list[str]:
    return [v.strip().lower() for v in value.split(",") if v.strip()]


class Allowed:
    """The Host names (``name:port``, or a ``name`` for any port, or ``*``) and the origins
    (``scheme://name[:port]``, or ``*``) a request may carry. By default the bound loopback
    names on the bound port (``127.0.0.1:8765``, ``localhost:8765``, ``[::1]:8765``), the
    bound address itself when it is not a wildcard, and their own http/https origins."""

    def __init__(self, host: str, port: int, api: ServeSettings) -> None:
        bound = f"[{host}]" if ":" in host else host
        names = list(LOOPBACK_NAMES)
        if host not in WILDCARD_BINDS and bound.lower() not in names:
            names.append(bound.lower())
        self.hosts = {f"{n}:{port}" for n in names} | set(_items(api.allowed_hosts))
        self.origins = set(_items(api.allowed_origins))

    def host_ok(self, header: str | None) -> bool:
        """``header`` (a Host value, ``name[:port]``) is allowed; a missing Host is not
        (HTTP/1.1 requires it; only a hand-made request omits it)."""
        if not header:
            return False
        value = header.strip().lower()
        name = value.rsplit(":", 1)[0] if not value.endswith("]") else value
        return "*" in self.hosts or value in self.hosts or name in self.hosts

    def origin_ok(self, header: str | None) -> bool:
        """No Origin (a client that is not a browser, a top-level page load) is fine; else
        it is listed, or it is an allowed host's own http(s) origin. ``null`` never is."""
        if header is None:
            return True
        value = header.strip().lower()
        if "*" in self.origins or value in self.origins:
            return True
        parts = urlsplit(value)
        return parts.scheme in ("http", "https") and not parts.path and self.host_ok(
            parts.netloc)

    def cors_origins(self) -> list[str]:
        """The origins CORS answers for (SERVE_ALLOWED_ORIGINS; ``*`` stays a wildcard)."""
        return sorted(self.origins)


class Sessions:
    """Page logins: a random token per successful key check, kept in memory for
    SESSION_SECONDS (a restart logs everyone out, which is fine for one process)."""

    def __init__(self) -> None:
        self._until: dict[str, float] = {}

    def open(self) -> str:
        token = secrets.token_urlsafe(32)
        now = time.monotonic()
        self._until = {t: u for t, u in self._until.items() if u > now}  # drop the expired
        self._until[token] = now + SESSION_SECONDS
        return token

    def valid(self, token: str | None) -> bool:
        return bool(token) and self._until.get(token or "", 0.0) > time.monotonic()

    def close(self, token: str | None) -> None:
        self._until.pop(token or "", None)


def cookie(header: str | None, name: str = SESSION_COOKIE) -> str | None:
    """The value of cookie ``name`` in a Cookie header."""
    for part in (header or "").split(";"):
        k, _, v = part.strip().partition("=")
        if k == name:
            return v
    return None
