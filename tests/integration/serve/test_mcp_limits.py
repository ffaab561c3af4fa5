"""MCP's bounds with the SDK's own client against a real `serve`: sessions are capped
(SERVE_MCP_SESSIONS) and those left idle expire (SERVE_MCP_IDLE), while a connected client
keeps its own; a tool's arguments are read by the same request model as the HTTP route, so an
unknown argument and a number that is no number get the route's one line."""

from __future__ import annotations

import asyncio
import json

import httpx2 as httpx
import pytest

pytest.importorskip("mcp", reason="the serve extra is not installed")
from mcp.client import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from .conftest import BASE_PORT, Running  # noqa: E402

pytestmark = pytest.mark.integration
PORT = BASE_PORT + 3
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
VERSION = "2025-06-18"  # a handshake-era protocol: what opens a session


def _open_and_leave(url: str) -> str:
    """A session opened by `initialize` and left without a goodbye (no DELETE, no stream):
    what a client that crashed, or one hoarding sessions, leaves behind. Its id."""
    r = httpx.post(url, headers=HEADERS, timeout=30, content=json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {},
            "clientInfo": {"name": "hoarder", "version": "1"}}}))
    assert r.status_code == 200, r.text
    return r.headers["mcp-session-id"]


def _refused(group: BaseException) -> str:
    """The MCPError a client's start ended with (the SDK wraps it in task groups)."""
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    assert isinstance(group, MCPError), repr(group)
    return group.error.message


async def test_sessions_are_capped_and_idle_ones_expire(indexed):
    with Running(indexed, PORT, serve_mcp_sessions=2, serve_mcp_idle=1.5) as srv:
        url = f"{srv.url}/mcp"
        async with Client(url, mode="legacy") as first, Client(url, mode="legacy"):
            with pytest.raises(BaseException) as third:  # the cap: a third is refused
                async with Client(url, mode="legacy"):
                    pass
            await asyncio.sleep(2.5)  # past the idle time: a connected client keeps its own
            kept = await first.call_tool("list_topics", {})
        assert _refused(third.value) == "Too many open sessions"
        assert not kept.is_error, kept.content
        # the two closed theirs on leaving (DELETE); two left behind fill the cap again
        left = [_open_and_leave(url) for _ in range(2)]
        with pytest.raises(BaseException) as refused:
            async with Client(url, mode="legacy"):
                pass
        assert _refused(refused.value) == "Too many open sessions"
        await asyncio.sleep(2.5)  # idle past SERVE_MCP_IDLE: closed, their room free
        async with Client(url, mode="legacy") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
        gone = httpx.post(url, timeout=30, headers={
            **HEADERS, "mcp-session-id": left[0], "mcp-protocol-version": VERSION},
            content=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    assert "ask" in tools
    assert gone.status_code == 404  # an expired session's id: the client starts a new one


# a tool's arguments and the route's body or query: (tool, arguments)
REFUSED = [
    ("ask", {"question": "Who?", "method": "retag", "topp": 5}),  # misspelt: not dropped
    ("ask", {"question": "Who?", "levels": 0, "colour": "red"}),  # two: "(and 1 more)"
    ("ask", {"question": "Who?", "method": "retag", "top_p": 0}),
    ("search_reports", {"query": "Scrooge", "kk": 3}),
    ("list_documents", {"limit": 5}),
]


def _route(c: httpx.Client, tool: str, args: dict, raw: str | None = None) -> str:
    """The route's one line for ``args`` (``raw``: a body as written, NaN and all)."""
    if tool == "ask":
        r = c.post("/ask", json=args) if raw is None else c.post(
            "/ask", content=raw, headers={"content-type": "application/json"})
    elif tool == "search_reports":
        r = c.get("/reports/search", params=args)
    else:
        r = c.get("/documents", params=args)
    assert r.status_code == 422, r.text
    return r.json()["error"]


def _call_raw(c: httpx.Client, session: str, arguments: str) -> dict:
    """tools/call of ``ask`` with ``arguments`` written as given: the SDK's client cannot
    send NaN or Infinity (it writes them as null, which means "not given", as in a body)."""
    r = c.post("/mcp", headers={**HEADERS, "mcp-session-id": session,
                                "mcp-protocol-version": VERSION},
               content='{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": '
                       '{"name": "ask", "arguments": ' + arguments + "}}")
    data = next(line[5:] for line in r.text.splitlines() if line.startswith("data:"))
    return json.loads(data)["result"]


async def test_a_tool_refuses_what_its_route_refuses_in_the_same_line(indexed, double):
    with Running(indexed, PORT) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        calls = double.count()
        async with Client(f"{srv.url}/mcp") as client:
            got = [(await client.call_tool(tool, args), _route(c, tool, args))
                   for tool, args in REFUSED]
        session = _open_and_leave(f"{srv.url}/mcp")
        numbers = []
        for value in ("NaN", "Infinity", "-Infinity", "1e400"):
            text = '{"question": "Who?", "method": "retag", "top_p": ' + value + "}"
            numbers.append((_call_raw(c, session, text), _route(c, "ask", {}, text)))
        assert double.count() == calls  # nothing refused reached the LLM
    lines = [(r.is_error, r.content[0].text, h) for r, h in got]
    assert all(error and mcp == http for error, mcp, http in lines), lines
    assert [h for _, _, h in lines] == [
        "topp: Extra inputs are not permitted",
        "levels: Extra inputs are not permitted (and 1 more)",
        "top_p: Input should be greater than or equal to 1",
        "kk: Extra inputs are not permitted",
        "limit: Extra inputs are not permitted"]
    for result, http in numbers:
        assert result["isError"] and result["content"][0]["text"] == http, (result, http)
        assert http == "top_p: Input should be a finite number"
