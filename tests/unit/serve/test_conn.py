"""The connection layer under a plain ASGI app, with real sockets (uvicorn in a thread on a
free loopback port, limits shortened): a head or a body trickled past its timeout gets a 408
and the connection is closed; past the connection cap a new one gets a 503; an unparseable
request a JSON 400; each with the security headers. A prompt client is untouched, keep-alive
included."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from neo4j_retag.serve.conn import Limits, server_config
from neo4j_retag.serve.headers import SecurityHeaders

LIMITS = Limits(header_timeout=1.0, body_timeout=1.0, keep_alive=5, max_connections=3)


async def echo(scope, receive, send):
    if scope["type"] != "http":
        return
    body = b""
    while True:
        m = await receive()
        if m["type"] != "http.request":
            return
        body += m.get("body", b"")
        if not m.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body) + 3).encode())]})
    await send({"type": "http.response.body", "body": b"ok:" + body})


@pytest.fixture(scope="module")
def port():
    import uvicorn
    server = uvicorn.Server(server_config(SecurityHeaders(echo), "127.0.0.1", 0, LIMITS))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert time.time() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(10)


def connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def read_all(s: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    return out


def head_of(response: bytes) -> tuple[int, dict[str, str]]:
    lines = response.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
    return int(lines[0].split()[1]), {k.lower(): v.strip() for k, v in
                                      (line.split(":", 1) for line in lines[1:])}


def request(s: socket.socket, body: bytes = b"") -> bytes:
    s.sendall(b"POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: " + str(len(body)).encode()
              + b"\r\n\r\n" + body)
    data = b""
    while b"ok:" + body not in data:
        data += s.recv(65536)
    return data


def test_a_prompt_client_keeps_its_connection(port):
    with connect(port) as s:
        for body in (b"first", b"", b"third one"):
            status, headers = head_of(request(s, body))
            assert status == 200 and headers["x-frame-options"] == "DENY"


def test_a_trickled_head_is_dropped_with_408(port):
    with connect(port) as s:
        t0 = time.monotonic()
        s.sendall(b"GET /slow HTTP/1.1\r\n")
        got = b""
        with pytest.raises(OSError):  # the server closes while the client still trickles
            for ch in b"Host: a\r\nX-Long: " + b"y" * 100:
                s.sendall(bytes([ch]))
                time.sleep(0.1)
        got = read_all(s)
    status, headers = head_of(got)
    assert status == 408 and b"request head did not arrive within 1 s" in got
    assert headers["content-security-policy"].startswith("default-src 'none'")
    assert time.monotonic() - t0 < 4


def test_a_trickled_body_is_dropped_with_408(port):
    with connect(port) as s:
        s.sendall(b"POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\n")
        with pytest.raises(OSError):
            for _ in range(50):
                s.sendall(b"z")
                time.sleep(0.1)
        got = read_all(s)
    assert head_of(got)[0] == 408 and b"request body did not arrive within 1 s" in got


def test_past_the_cap_a_new_connection_gets_503_until_idle_ones_are_dropped(port):
    idle = [connect(port) for _ in range(LIMITS.max_connections)]
    try:
        for s in idle:
            s.sendall(b"GET / HTTP/1.1\r\n")  # a head begun, never finished
        time.sleep(0.2)
        with connect(port) as extra:
            got = read_all(extra)
        status, headers = head_of(got)
        assert status == 503 and headers["retry-after"] == "1"
        assert b"too many connections (3 open)" in got and headers["x-frame-options"] == "DENY"
        time.sleep(LIMITS.header_timeout + 0.5)  # the idle ones are dropped: room again
        with connect(port) as s:
            assert head_of(request(s, b"back"))[0] == 200
    finally:
        for s in idle:
            s.close()


def test_an_unparseable_request_is_a_json_400(port):
    with connect(port) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: a\r\nBad\x00Header: 1\r\n\r\n")
        got = read_all(s)
    status, headers = head_of(got)
    assert status == 400 and headers["content-type"] == "application/json"
    assert b'{"error": "invalid HTTP request' in got and "x-content-type-options" in headers
