"""serve's edges with real clients against a real uvicorn (serve's own connection layer) on
the real Neo4j with the LLM double: control characters are a 400 and the connection goes on
(no 500, no traceback in the log); wrong keys are throttled per client and across clients
(parallel guesses from many loopback addresses); trickling clients are dropped and past the
connection cap a new one gets a 503; every response carries the security headers; a stream
cut mid-answer is counted in the trace."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import secrets
import socket
import time

import httpx2 as httpx
import pytest

from neo4j_retag.serve import throttle
from neo4j_retag.serve.conn import Limits
from tests.llm_double import Reply

from .conftest import BASE_PORT, Running, sse

pytestmark = pytest.mark.integration
PORT = BASE_PORT + 7


def _send(c: http.client.HTTPConnection, method: str, path: str, body=None):
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"content-type": "application/json"} if body is not None else {})
    r = c.getresponse()
    return r.status, r.read()


def test_control_characters_and_other_odd_input_are_4xx_on_a_living_connection(
        indexed, double, tmp_path, caplog):
    (tmp_path / "notes.txt").write_text("Belle left Scrooge.")
    # uvicorn's own logger does not propagate to the root: listen to it too
    logging.getLogger("uvicorn.error").addHandler(caplog.handler)
    try:
        _odd_input(indexed, double, tmp_path)
    finally:
        logging.getLogger("uvicorn.error").removeHandler(caplog.handler)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    assert "Traceback" not in caplog.text


def _odd_input(indexed, double, tmp_path) -> None:
    with Running(indexed, PORT, allow_writes=True, serve_ingest_root=tmp_path) as srv:
        doc = httpx.get(f"{srv.url}/documents").json()["documents"][0]["id"]
        calls = double.count()
        c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        c.connect()
        sock = c.sock
        bad = [("DELETE", f"/documents/{doc[:8]}%1F", None, "path"),
               ("POST", "/ingest", {"paths": ["notes.txt", "notes\u0085.txt"]}, "paths.1"),
               ("POST", "/ingest", {"paths": ["\u007fnotes.txt"], "topics": False}, "paths.0"),
               ("GET", "/text-units/%C2%9B", None, "path"),  # C1: CSI
               ("GET", "/reports/search?query=Fezziwig%00ball&k=2", None, "query"),
               ("POST", "/ask", {"question": "Who rang the bell?\u0007"}, "question"),
               ("POST", "/ask", {"question": "Who?", "topic": "\u001b[2Jtopic"}, "topic"),
               ("POST", "/login", {"key": "x\u0000"}, "key")]
        for method, path, body, where in bad:
            status, text = _send(c, method, path, body)
            assert status == 400, (path, text)
            assert json.loads(text)["error"].startswith(f"{where}: control character"), text
            assert _send(c, "GET", "/health")[0] == 200
            assert c.sock is sock, f"the connection was closed after {path}"
        # what was a 500 before: numbers beyond 64 bits, a path too long, a deep body
        odd = [("GET", "/reports/123456789012345678901234567890", None, 422),
               ("POST", "/ask", {"question": "Who?", "level": 10**25}, 400),
               ("POST", "/ask", {"question": "Who?", "method": "retag", "top_p": 2**62}, 422),
               ("POST", "/ingest", {"paths": ["n" * 4096 + ".txt"]}, 400),
               ("POST", "/ingest", {"paths": ["/".join(["d"] * 2500)]}, 400)]
        for method, path, body, want in odd:
            status, text = _send(c, method, path, body)
            assert status == want and set(json.loads(text)) == {"error"}, (path, text)
            assert "\n" not in json.loads(text)["error"]
        c.request("POST", "/ask", body=b"[" * 20_000 + b"]" * 20_000,
                  headers={"content-type": "application/json"})
        r = c.getresponse()
        assert r.status == 400 and b"nested deeper than" in r.read()
        assert c.sock is sock
        # Starlette's own refusals in the same {"error": ...} shape
        for method, path, raw, want in (("POST", "/ask", b'\xff\xfe{"question": "\xc3"}', 400),
                                        ("POST", "/ask", b'"just a question"', 422),
                                        ("GET", "/nowhere/at/all", None, 404),
                                        ("PUT", "/ask", b"{}", 405)):
            c.request(method, path, body=raw, headers={"content-type": "application/json"})
            r = c.getresponse()
            body = json.loads(r.read())
            assert r.status == want and set(body) == {"error"} and body["error"], (path, body)
            assert not body["error"].startswith(":")
        c.close()
        assert double.count() == calls and not len(srv.service.jobs)


async def _guess(url: str, n: int, address: str, route: str = "/documents",
                 key: str | None = None) -> list[int]:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=30) as c:
        async def one(i: int) -> int:
            if route == "/login":
                return (await c.post("/login", json={"key": key or f"guess-{i}"})).status_code
            headers = {"authorization": f"Bearer {key or f'guess-{i}'}"}
            return (await c.get(route, headers=headers)).status_code
        return list(await asyncio.gather(*(one(i) for i in range(n))))


def _from(address: str, method: str, url: str, **kwargs) -> httpx.Response:
    """One request from the loopback ``address`` (127.0.0.x: another client to serve)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30) as c:
        return c.request(method, url, **kwargs)


def test_key_guessing_is_throttled_per_client_and_across_clients(indexed):
    key = secrets.token_urlsafe(32)
    with Running(indexed, PORT, serve_api_key=key) as srv:
        url = srv.url
        # a user signs in before the attack
        assert asyncio.run(_guess(url, 1, "127.0.0.77", "/stats", key)) == [200]
        # 30 addresses, two guesses each, all at once, through /login and the bearer
        t0 = time.perf_counter()

        async def crowd() -> list[int]:
            parts = await asyncio.gather(*(
                _guess(url, 2, f"127.0.0.{10 + i}", "/login" if i % 2 else "/documents")
                for i in range(30)))
            return [s for p in parts for s in p]
        statuses = asyncio.run(crowd())
        seconds = time.perf_counter() - t0
        checked = statuses.count(401)
        # one check per GLOBAL_INTERVAL past GLOBAL_FREE (however long a loaded machine took)
        most = throttle.GLOBAL_FREE + int(seconds / throttle.GLOBAL_INTERVAL) + 1
        assert throttle.GLOBAL_FREE <= checked <= most, (checked, seconds, statuses)
        assert statuses.count(429) == 60 - checked
        # meanwhile the signed-in user goes on
        assert asyncio.run(_guess(url, 1, "127.0.0.77", "/stats", key)) == [200]
        # a new client, even with the right key, waits its turn after a checked guess
        for _ in range(10):
            if asyncio.run(_guess(url, 1, "127.0.0.79")) == [401]:
                break
            time.sleep(0.3)
        r = _from("127.0.0.78", "GET", f"{url}/stats",
                  headers={"authorization": f"Bearer {key}"})
        assert r.status_code == 429 and "from all clients" in r.json()["error"], r.text
        time.sleep(int(r.headers["retry-after"]) + 0.1)
        assert asyncio.run(_guess(url, 1, "127.0.0.78", "/stats", key)) == [200]
        r = httpx.get(f"{url}/session", headers={"authorization": "Bearer nope"})
        assert r.json() == {"key_required": True, "signed_in": False}
    assert srv.service.throttle.refused >= 60 - checked


def test_one_client_guessing_in_parallel_gets_429_with_retry_after(indexed):
    key = secrets.token_urlsafe(40)
    with Running(indexed, PORT, serve_api_key=key) as srv:
        statuses = asyncio.run(_guess(srv.url, 25, "127.0.0.5", "/reports/search?query=x"))
        checked = statuses.count(401)  # FREE, or one more if the burst outlasted 1 s
        assert throttle.FREE <= checked <= throttle.FREE + 1, statuses
        assert statuses.count(429) == 25 - checked
        r = _from("127.0.0.5", "POST", f"{srv.url}/login", json={"key": key})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1  # not checked
        assert "from this client" in r.json()["error"]
        assert asyncio.run(_guess(srv.url, 1, "127.0.0.6", "/stats", key)) == [200]


def _trickle(port: int, head: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    s.sendall(head)
    return s


def _closed_within(socks: list[socket.socket], seconds: float) -> tuple[int, list[bytes]]:
    """How many of ``socks`` the server closed within ``seconds`` while each kept sending a
    byte every 0.25 s, and what each received."""
    got = [b""] * len(socks)
    open_ = set(range(len(socks)))
    for s in socks:
        s.setblocking(False)
    deadline = time.monotonic() + seconds
    while open_ and time.monotonic() < deadline:
        for i in list(open_):
            try:
                while chunk := socks[i].recv(65536):
                    got[i] += chunk
                open_.discard(i)  # b"": closed by the server
                continue
            except BlockingIOError:
                pass
            except OSError:
                open_.discard(i)
                continue
            with contextlib.suppress(OSError):  # closing: the next recv tells
                socks[i].send(b"x")
        time.sleep(0.25)
    return len(socks) - len(open_), got


def test_trickling_clients_are_dropped_and_the_cap_holds(indexed, double):
    limits = Limits(header_timeout=2.0, body_timeout=2.0, max_connections=30)
    with Running(indexed, PORT, limits=limits) as srv:
        calls = double.count()
        heads = [_trickle(PORT, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                 for _ in range(28)]
        bodies = [_trickle(PORT, b"POST /ask HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                           b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n"
                           b'{"question": "' % PORT) for _ in range(2)]
        time.sleep(0.3)
        # the cap: a 31st connection is answered 503 at once
        over = socket.create_connection(("127.0.0.1", PORT), timeout=10)
        data = b""
        while chunk := over.recv(65536):
            data += chunk
        assert data.startswith(b"HTTP/1.1 503") and b"too many connections (30 open)" in data
        assert b"x-frame-options: DENY" in data
        t0 = time.monotonic()
        closed, got = _closed_within(heads + bodies, 8.0)
        assert closed == 30, f"{30 - closed} trickling connections still open"
        assert time.monotonic() - t0 < 6
        assert all(g.startswith(b"HTTP/1.1 408") for g in got), {g[:40] for g in got}
        assert b"request body did not arrive within 2 s" in got[-1]
        for s in heads + bodies + [over]:
            s.close()
        assert httpx.get(f"{srv.url}/health", timeout=10).status_code == 200  # room again
        assert double.count() == calls  # the trickled questions spent nothing


SECURITY = {"x-frame-options": "DENY", "x-content-type-options": "nosniff",
            "referrer-policy": "same-origin"}


def test_every_response_carries_the_security_headers(indexed, double):
    key = secrets.token_urlsafe(32)
    bearer = {"authorization": f"Bearer {key}"}
    with Running(indexed, PORT, serve_api_key=key, serve_max_body=2048) as srv, \
            httpx.Client(base_url=srv.url, timeout=60) as c:
        responses = [
            c.get("/"), c.get("/page/app.js"), c.get("/page/style.css"), c.get("/health"),
            c.get("/session"), c.get("/docs"), c.get("/openapi.json", headers=bearer),
            c.get("/stats"), c.get("/stats", headers=bearer),
            c.get("/stats", headers={**bearer, "host": "evil.example"}),
            c.get("/stats", headers={**bearer, "origin": "http://evil.example"}),
            c.get("/reports/987654", headers=bearer), c.get("/nowhere", headers=bearer),
            c.post("/ask", headers=bearer, content=b"x" * 4096),
            c.post("/ask", headers=bearer, json={"question": "\u0000"}),
            c.post("/ask", headers=bearer, json={"question": ""}),
            c.post("/mcp", headers={**bearer, "accept": "application/json, text/event-stream"},
                   json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                       "protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}})]
        with c.stream("POST", "/ask/stream", headers=bearer,
                      json={"question": "Who is Scrooge?", "method": "local"}) as r:
            events = [k for k, _ in sse(r.iter_lines())]
            responses.append(r)
    statuses = [r.status_code for r in responses]
    assert {200, 400, 401, 403, 404, 413, 421, 422} <= set(statuses), statuses
    assert events[-1] == "answer"
    for r in responses:
        for name, value in SECURITY.items():
            assert r.headers.get(name) == value, (r.request.url, r.status_code, name)
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp, (r.request.url, csp)
        assert r.headers.get_list("x-frame-options") == ["DENY"]
    page = responses[0].headers["content-security-policy"]
    assert page.startswith("default-src 'self'"), page


def test_a_stream_cut_mid_answer_is_counted_in_the_trace(indexed, double):
    # the reduce step's stream stops without a finish reason; asked again, it answers
    cut = [Reply("Scrooge and Marley kept a counting-house where", finish_reason=None)]
    default = double.script["reduce"]
    double.script["reduce"] = lambda body: cut.pop() if cut else default(body)
    with Running(indexed, PORT) as srv, httpx.Client(base_url=srv.url, timeout=120) as c:
        before = double.count()
        with c.stream("POST", "/ask/stream",
                      json={"question": "What are the main themes?", "method": "global",
                            "level": 0}) as r:
            got = dict(sse(r.iter_lines()))
    answer = json.loads(got["answer"])
    llm = answer["trace"]["llm"]
    sent = double.count() - before
    assert double.count("reduce") >= 2 and sent >= 3
    assert llm["calls"] + llm["failed"] == sent, (llm, sent)
