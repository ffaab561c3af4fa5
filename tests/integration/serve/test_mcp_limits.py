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
