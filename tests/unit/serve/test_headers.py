"""Security headers on every response: the page's CSP of its own files, the API's that loads
nothing, /docs' that only refuses framing; headers the app set itself are replaced, never
doubled."""

from neo4j_retag.serve.headers import SecurityHeaders, for_path


async def run(path: str, app_headers=()) -> list[tuple[bytes, bytes]]:
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": list(app_headers)})
        await send({"type": "http.response.body", "body": b"{}"})

    sent: list = []

    async def send(message):
        sent.append(message)

    await SecurityHeaders(app)({"type": "http", "path": path}, None, send)
    return sent[0]["headers"]


async def test_every_path_gets_its_headers():
    for path, csp in (("/", b"default-src 'self'"), ("/page/app.js", b"default-src 'self'"),
                      ("/ask/stream", b"default-src 'none'"), ("/mcp", b"default-src 'none'"),
                      ("/nowhere/%00", b"default-src 'none'"), ("/docs", b"frame-ancestors")):
        headers = dict(await run(path))
        assert headers[b"x-frame-options"] == b"DENY", path
        assert headers[b"x-content-type-options"] == b"nosniff"
        assert headers[b"referrer-policy"] == b"same-origin"
        assert headers[b"content-security-policy"].startswith(csp), path
        assert b"frame-ancestors 'none'" in headers[b"content-security-policy"]


async def test_the_apps_own_are_replaced_not_doubled():
    headers = await run("/health", [(b"X-Frame-Options", b"SAMEORIGIN"),
                                    (b"content-type", b"application/json")])
    names = [k.lower() for k, _ in headers]
    assert names.count(b"x-frame-options") == 1 and (b"content-type", b"application/json") \
        in headers
    assert dict(headers)[b"x-frame-options"] == b"DENY"
    assert for_path("/") != for_path("/health")
