"""Security headers on every response `serve` sends (the API, the page, /mcp, the Guard's own
refusals and the connection layer's 408/503): no page on another origin may frame it
(``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``: a framed page could be clicked
into asking, spending LLM calls), no response is sniffed into another type, no URL leaves as
a referrer. The page gets a content security policy of its own files only; the API's answers
(JSON, events) load nothing at all; /docs (Swagger UI from its CDN) only refuses framing."""

from __future__ import annotations

from typing import Any

# same-origin, not no-referrer: the page's own requests keep their Origin either way, and a
# browser may send `Origin: null` (refused by the Guard) for a form post under no-referrer
COMMON = ((b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"),
          (b"referrer-policy", b"same-origin"))
PAGE_CSP = (b"default-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
            b"form-action 'self'; object-src 'none'")
API_CSP = b"default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
DOCS_CSP = b"frame-ancestors 'none'"
DOCS = ("/docs", "/redoc", "/openapi.json")


def for_path(path: str) -> list[tuple[bytes, bytes]]:
    """The security headers of a response to ``path``."""
    if path == "/" or path.startswith("/page/"):
        csp = PAGE_CSP
    elif path.startswith(DOCS):
        csp = DOCS_CSP
    else:
        csp = API_CSP
    return [*COMMON, (b"content-security-policy", csp)]


class SecurityHeaders:
    """ASGI middleware: :func:`for_path`'s headers added to every HTTP response (replacing
    any of the same name the app set)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = for_path(scope.get("path", ""))
        names = {k for k, _ in extra}

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", [])
                        if k.lower() not in names]
                message = {**message, "headers": kept + extra}
            await send(message)

        await self.app(scope, receive, with_headers)
