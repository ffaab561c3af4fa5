"""serve's connection bounds against the real app (uvicorn as `serve` runs it, the real
Neo4j, the LLM double), with raw sockets on loopback: a request head over 16 KB is a 431, a
request framed by both Content-Length and Transfer-Encoding a 400, and neither leaves its
connection open for a request sent behind it; one client address holding 256 idle sockets
gets its share (SERVE_CONNECTIONS_PER_CLIENT) and every other client is still served."""

from __future__ import annotations

import contextlib
import json
import socket
import time

import httpx2 as httpx
import pytest

from neo4j_retag.config import ServeSettings

from .conftest import BASE_PORT, Running

pytestmark = pytest.mark.integration
PORT = BASE_PORT + 4
HOST = f"Host: 127.0.0.1:{PORT}\r\n".encode()


def _exchange(data: bytes, source: str = "127.0.0.1") -> bytes:
    """``data`` sent on a fresh connection from ``source``; what came back until the server
    closed it (a connection left open fails the read's timeout)."""
    with socket.create_connection(("127.0.0.1", PORT), timeout=15,
                                  source_address=(source, 0)) as s:
        with contextlib.suppress(OSError):  # refused midway: the rest is dropped unread
            s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def _responses(raw: bytes) -> list[tuple[int, dict]]:
    """Each response's status and JSON body (Content-Length framed) in ``raw``."""
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = {k.lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
        size = int(headers["content-length"])
        out.append((int(lines[0].split()[1]), json.loads(rest[:size])))
        raw = rest[size:]
    return out


def _ask(body: bytes, close: bool = False) -> bytes:
    return (b"POST /ask HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
            + (b"Connection: close\r\n" if close else b"")
            + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def test_an_oversized_head_and_a_twice_framed_request_end_their_connection(indexed, double):
    question = b'{"question": "Who is Scrooge?", "method": "local"}'
    with Running(indexed, PORT):
        calls = double.count()
        for size in (16_896, 71_680):  # 16.5 KB and 70 KB, each with a question behind it
            start = b"GET /health HTTP/1.1\r\n" + HOST + b"X-Fill: "
            head = start + b"y" * (size - len(start) - 4) + b"\r\n\r\n"
            got = _responses(_exchange(head + _ask(question)))
            assert [s for s, _ in got] == [431], got
            assert got[0][1]["error"] == ("the request head (its line and headers) is over "
                                          "16 KB (16384 bytes)")
        # smuggling: the front end reads 4 body bytes (Content-Length), this server the
        # chunked body; the question behind it must not be answered on this connection
        chunked = b"0\r\n\r\n"
        smuggled = (b"POST /ask HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                    b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked
                    + _ask(question))
        got = _responses(_exchange(smuggled))
        assert [s for s, _ in got] == [400], got
        assert "both Content-Length and Transfer-Encoding" in got[0][1]["error"]
        assert double.count() == calls  # no question was answered
        # a head within the bound is served, a question after it on the same connection too
        start = b"GET /health HTTP/1.1\r\n" + HOST + b"X-Fill: "
        fine = start + b"y" * (16_000 - len(start)) + b"\r\n\r\n"
        got = _responses(_exchange(fine + _ask(question, close=True)))
        assert [s for s, _ in got] == [200, 200], got
        assert got[1][1]["answer"]


def test_one_client_holding_256_idle_sockets_leaves_the_others_served(indexed):
    share = ServeSettings().connections_per_client
    with Running(indexed, PORT) as srv:
        held, refused = [], 0
        try:
            for _ in range(256):  # the client: 256 sockets, a head begun on each
                s = socket.create_connection(("127.0.0.1", PORT), timeout=10,
                                             source_address=("127.0.0.2", 0))
                held.append(s)
                s.sendall(b"GET /health HTTP/1.1\r\n")
            time.sleep(0.3)
            for s in held:  # the refused ones were answered and half-closed at once
                s.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    data = s.recv(65536)
                    refused += data.startswith(b"HTTP/1.1 429")
                    assert b"too many connections from your address" in data, data
            assert refused == 256 - share
            # every other client is served: the loopback address and another one
            for source in ("127.0.0.1", "127.0.0.3"):
                with httpx.Client(transport=httpx.HTTPTransport(local_address=source),
                                  timeout=10) as c:
                    assert c.get(f"{srv.url}/health").json()["status"] == "ok"
                    assert c.get(f"{srv.url}/documents").status_code == 200
        finally:
            for s in held:
                s.close()
