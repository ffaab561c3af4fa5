"""The Guard in front of every route, driven as plain ASGI: a foreign Host (DNS rebinding) is
421 and a foreign Origin 403 before anything else; the key as a bearer header or as the page's
session cookie, wrong keys throttled (429 without a check); a chunked body over the cap is 413
before the app reads it; control characters are a 400 before the app; CORS only when asked,
for the allowed origins only."""

from __future__ import annotations

import json

from neo4j_retag.config import ServeSettings
from neo4j_retag.serve.origin import SESSION_COOKIE, Allowed, Sessions, cookie
from neo4j_retag.serve.security import Guard


def api(**values) -> ServeSettings:
    return ServeSettings(**{k.upper(): v for k, v in values.items()})


async def app(scope, receive, send):
    """Echoes the body it read (so a test sees what reached the app)."""
    body = b""
    while True:
        m = await receive()
        body += m.get("body", b"")
        if not m.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"app:" + body})


async def call(guard, path="/ask", method="POST", headers=None, chunks=(b"{}",),
               client="127.0.0.1", query=b""):
    hdrs = {"host": "127.0.0.1:8765", **(headers or {})}
    scope = {"type": "http", "method": method, "path": path, "query_string": query,
             "client": (client, 40000), "headers": [
                 (k.encode(), v.encode()) for k, v in hdrs.items() if v is not None]}
    parts = list(chunks)
    sent: list = []

    async def receive():
        if parts:
            body = parts.pop(0)
            return {"type": "http.request", "body": body, "more_body": bool(parts)}
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    await guard(scope, receive, send)
    if not sent:
        return None, {}, b""
    status = sent[0]["status"]
    headers_out = {k.decode(): v.decode() for k, v in sent[0].get("headers", [])}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return status, headers_out, body


def guard(**values) -> Guard:
    settings = api(**values)
    return Guard(app, allowed=Allowed("127.0.0.1", 8765, settings), key=settings.key(),
                 sessions=Sessions(), max_body=settings.max_body, cors=settings.cors)


def test_allowed_hosts_and_origins():
    a = Allowed("127.0.0.1", 8765, api())
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST:8765"):
        assert a.host_ok(host), host
    for host in (None, "", "evil.example", "evil.example:8765", "127.0.0.1:8766",
                 "localhost", "127.0.0.1.evil.example:8765"):
        assert not a.host_ok(host), host
    assert a.origin_ok(None) and a.origin_ok("http://localhost:8765")
    for origin in ("http://evil.example", "null", "http://localhost:9999",
                   "file://", "http://localhost:8765/x"):
        assert not a.origin_ok(origin), origin
    wide = Allowed("0.0.0.0", 443, api(serve_allowed_hosts="retag.example.com",
                                       serve_allowed_origins="https://app.example.com"))
    assert wide.host_ok("retag.example.com") and wide.host_ok("retag.example.com:443")
    assert wide.origin_ok("https://retag.example.com") and wide.origin_ok(
        "https://app.example.com")
    assert not wide.host_ok("0.0.0.0:443") and not wide.origin_ok("https://evil.example")
    assert Allowed("10.0.0.5", 8765, api()).host_ok("10.0.0.5:8765")


async def test_foreign_host_is_421_and_foreign_origin_403_on_every_route():
    g = guard()
    for path, method in (("/ask", "POST"), ("/documents", "GET"), ("/reports/1", "GET"),
                         ("/stats", "GET"), ("/documents/abc", "DELETE"), ("/ingest", "POST"),
                         ("/", "GET"), ("/mcp", "POST"), ("/health", "GET")):
        status, _, body = await call(g, path, method, {"host": "evil.example"})
        assert status == 421 and b"app:" not in body, (path, body)
        assert "SERVE_ALLOWED_HOSTS" in json.loads(body)["error"]
        status, _, body = await call(g, path, method, {"origin": "http://evil.example"})
        assert status == 403 and "SERVE_ALLOWED_ORIGINS" in json.loads(body)["error"], path
    assert (await call(g, "/ask", "POST", {"origin": "http://127.0.0.1:8765"}))[0] == 200
    assert (await call(g, "/ask"))[0] == 200  # no Origin: curl, an agent


async def test_key_as_bearer_or_session_cookie():
    g = guard(serve_api_key="s3cret")
    assert (await call(g, "/ask"))[0] == 401
    assert (await call(g, "/ask", headers={"authorization": "Bearer s3cret"}))[0] == 200
    for open_path in ("/", "/page/app.js", "/health", "/login"):
        assert (await call(g, open_path, "GET"))[0] == 200, open_path
    token = g.sessions.open()
    assert (await call(g, "/ask", headers={"cookie": f"a=b; {SESSION_COOKIE}={token}"}))[0] \
        == 200
    assert (await call(g, "/ask", headers={"cookie": f"{SESSION_COOKIE}=forged"}))[0] == 401
    g.sessions.close(token)
    assert (await call(g, "/ask", headers={"cookie": f"{SESSION_COOKIE}={token}"}))[0] == 401
    assert cookie("x=1; retag_session=abc") == "abc" and cookie(None) is None


async def test_a_chunked_body_over_the_cap_is_413_before_the_app():
    g = guard(serve_max_body=2048)
    status, _, body = await call(g, chunks=[b"x" * 1000] * 3)  # no content-length
    assert status == 413 and b"over 2048 bytes" in body
    status, _, body = await call(g, chunks=[b"a" * 1000, b"b" * 1000])
    assert status == 200 and body == b"app:" + b"a" * 1000 + b"b" * 1000
    status, _, _ = await call(g, headers={"content-length": "4096"})
    assert status == 413


async def test_cors_only_when_asked_and_only_for_allowed_origins():
    origin = "https://app.example.com"
    pre = {"origin": origin, "access-control-request-method": "POST",
           "access-control-request-headers": "authorization,content-type"}
    off = guard(serve_api_key="k", serve_allowed_origins=origin)
    status, headers, _ = await call(off, "/ask", "OPTIONS", pre)
    assert "access-control-allow-origin" not in headers
    on = guard(serve_api_key="k", serve_allowed_origins=origin, serve_cors=True)
    status, headers, _ = await call(on, "/ask", "OPTIONS", pre)  # a preflight needs no key
    assert status == 200 and headers["access-control-allow-origin"] == origin
    status, headers, _ = await call(on, "/ask", "POST", {"origin": origin,
                                                         "authorization": "Bearer k"})
    assert status == 200 and headers["access-control-allow-origin"] == origin
    status, _, _ = await call(on, "/ask", "OPTIONS", {**pre, "origin": "https://evil.example"})
    assert status == 403


async def test_wrong_keys_are_throttled_per_client_before_the_check():
    g = guard(serve_api_key="k" * 40)
    statuses = [(await call(g, "/documents", "GET", {"authorization": f"Bearer guess{i}"},
                            client="10.1.1.1"))[0] for i in range(12)]
    assert statuses == [401] * 5 + [429] * 7, statuses
    status, headers, body = await call(g, "/documents", "GET",
                                       {"authorization": "Bearer " + "k" * 40},
                                       client="10.1.1.1")
    assert status == 429 and headers["retry-after"] == "1"  # not checked, even when right
    assert "too many wrong API keys from this client" in json.loads(body)["error"]
    # another client is checked as usual; a request without a key is no guess
    assert (await call(g, "/documents", "GET", {"authorization": "Bearer " + "k" * 40},
                       client="10.1.1.2"))[0] == 200
    for _ in range(10):
        assert (await call(g, "/documents", "GET", client="10.1.1.3"))[0] == 401
    assert (await call(g, "/documents", "GET", {"authorization": "Bearer " + "k" * 40},
                       client="10.1.1.3"))[0] == 200


async def test_control_characters_are_400_before_the_app():
    g = guard()
    for path, query, chunks, where in (
            ("/text-units/a\x00b", b"", (b"",), "path"),
            ("/reports/search", b"q=Fezziwig%1B%5B2J", (b"",), "q"),
            ("/ingest", b"", (b'{"paths": ["ok", "\\u0007bell"]}',), "paths.1"),
            ("/ask", b"", (b'{"question": "Who', b' is \\u0085 Marley?"}'), "question")):
        status, headers, body = await call(g, path, "POST", chunks=chunks, query=query)
        assert status == 400 and b"app:" not in body, (path, body)
        assert json.loads(body)["error"].startswith(f"{where}: control character"), body
    # MCP's arguments are checked per tool, as MCP errors
    status, _, body = await call(g, "/mcp", chunks=(b'{"params": {"q": "\\u0000"}}',))
    assert status == 200 and body.startswith(b"app:")
    status, _, body = await call(g, "/ask", chunks=(b'{"question": "Why?\\n\\tWhen?"}',))
    assert status == 200


async def test_a_client_that_leaves_mid_body_gets_nothing_and_the_app_is_not_called():
    g = guard()
    scope = {"type": "http", "method": "POST", "path": "/ask", "query_string": b"",
             "client": ("127.0.0.1", 1), "headers": [(b"host", b"127.0.0.1:8765")]}
    messages = [{"type": "http.request", "body": b"{", "more_body": True},
                {"type": "http.disconnect"}]
    sent: list = []

    async def receive():
        return messages.pop(0)

    async def send(m):
        sent.append(m)

    await g(scope, receive, send)
    assert sent == []
