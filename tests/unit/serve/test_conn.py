"""The connection layer under a plain ASGI app, with real sockets (uvicorn in a thread on a
free loopback port, limits shortened): a head or a body trickled past its timeout gets a 408
and the connection is closed; past the connection cap a new one gets a 503, past the cap per
client address a 429 while other addresses are served; a head over 16 KB a 431, a request
framed twice (Content-Length and Transfer-Encoding) a 400, each closing the connection
before a request sent behind it is read; an unparseable request a JSON 400; each with the
security headers. A prompt client is untouched, keep-alive included."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import pytest

from neo4j_retag.serve.conn import Limits, server_config
from neo4j_retag.serve.headers import SecurityHeaders

LIMITS = Limits(header_timeout=1.0, body_timeout=1.0, keep_alive=5, max_connections=3)
SEEN: list[str] = []  # the paths the app was called for


async def echo(scope, receive, send):
    if scope["type"] != "http":
        return
    SEEN.append(scope["path"])
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


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
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


def _refused_with(port: int, data: bytes) -> bytes:
    """What the server answers ``data`` sent on a fresh connection, until it closes it."""
    with connect(port) as s:
        s.sendall(data)
        return read_all(s)


def _head(size: int, path: str = "/big") -> bytes:
    """A whole GET head of ``size`` bytes (a long header fills it)."""
    start = f"GET {path} HTTP/1.1\r\nHost: a\r\nX-Fill: ".encode()
    return start + b"y" * (size - len(start) - 4) + b"\r\n\r\n"


@pytest.mark.parametrize("size", [16_896, 71_680])  # 16.5 KB, 70 KB
def test_a_head_over_16_kb_is_a_431_and_closes_the_connection(port, size):
    SEEN.clear()
    # sent whole, with a request behind it on the same connection
    got = _refused_with(port, _head(size) + b"GET /after HTTP/1.1\r\nHost: a\r\n\r\n")
    status, headers = head_of(got)
    assert status == 431 and headers["content-type"] == "application/json", got[:200]
    assert b"request head (its line and headers) is over 16 KB (16384 bytes)" in got
    assert headers["connection"] == "close" and headers["x-frame-options"] == "DENY"
    assert got.count(b"HTTP/1.1") == 1 and SEEN == []  # neither request reached the app


def test_a_head_over_16_kb_in_pieces_or_behind_another_request_is_a_431(port):
    SEEN.clear()
    with connect(port) as s:  # in pieces: h11's own bound, the same answer
        s.sendall(b"GET /piecemeal HTTP/1.1\r\nHost: a\r\nX-Fill: ")
        with contextlib.suppress(OSError):  # refused midway: the rest is dropped unread
            for _ in range(40):
                s.sendall(b"y" * 1024)
                time.sleep(0.01)
        got = read_all(s)
    assert head_of(got)[0] == 431 and b"over 16 KB" in got
    with connect(port) as s:  # pipelined behind a good request: read from h11's buffer
        s.sendall(b"GET /first HTTP/1.1\r\nHost: a\r\n\r\n" + _head(17_000, "/second"))
        got = read_all(s)
    assert got.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 431" in got
    assert SEEN == ["/first"]


def test_a_head_of_16_kb_or_less_is_served(port):
    with connect(port) as s:
        s.sendall(_head(16_384))
        got = b""
        while b"ok:" not in got:
            got += s.recv(65536)
    assert head_of(got)[0] == 200


def test_content_length_with_transfer_encoding_is_a_400_and_closes_the_connection(port):
    SEEN.clear()
    smuggled = (b"POST /outer HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                b"GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n")
    got = _refused_with(port, smuggled)
    status, headers = head_of(got)
    assert status == 400 and headers["connection"] == "close", got[:300]
    assert b"both Content-Length and Transfer-Encoding" in got
    assert got.count(b"HTTP/1.1") == 1 and SEEN == []  # nothing behind it was processed


@pytest.fixture
def small_per_client():
    import uvicorn
    limits = Limits(header_timeout=3.0, max_connections=10, per_client=4)
    server = uvicorn.Server(server_config(SecurityHeaders(echo), "127.0.0.1", 0, limits))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert time.time() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(10)


def test_one_address_holding_its_share_leaves_the_others_served(small_per_client):
    port = small_per_client
    held = [connect(port, "127.0.0.2") for _ in range(4)]
    try:
        for s in held:
            s.sendall(b"GET / HTTP/1.1\r\n")  # idle: a head begun, never finished
        time.sleep(0.2)
        refused = []
        for _ in range(8):  # it keeps trying: each one refused, none counted against others
            with connect(port, "127.0.0.2") as extra:
                refused.append(read_all(extra))
        status, headers = head_of(refused[0])
        assert status == 429 and headers["retry-after"] == "1", refused[0]
        assert b"too many connections from your address (4 open)" in refused[0]
        assert all(head_of(r)[0] == 429 for r in refused)
        # another address: served, up to the total
        others = [connect(port, "127.0.0.3") for _ in range(2)]
        for s in others:
            assert head_of(request(s, b"other"))[0] == 200
        with connect(port) as s:
            assert head_of(request(s, b"still"))[0] == 200
        for s in others:
            s.close()
    finally:
        for s in held:
            s.close()
    time.sleep(0.3)  # closed: that address has its share again
    with connect(port, "127.0.0.2") as s:
        assert head_of(request(s, b"back"))[0] == 200
