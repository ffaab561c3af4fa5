"""MCP with the SDK's own client, over streamable HTTP (/mcp) and over stdio (`serve
--mcp-stdio` as a desktop agent launches it): the tools listed, `ask` answering with
citations and cost, the other read tools, resources, write tools only with --allow-writes."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

pytest.importorskip("mcp", reason="the serve extra is not installed")
from mcp import StdioServerParameters  # noqa: E402
from mcp.client import Client  # noqa: E402

from tests.conftest import double_vars, neo4j_vars  # noqa: E402

from .conftest import BASE_PORT, Running  # noqa: E402

pytestmark = pytest.mark.integration
READ_TOOLS = {"ask", "list_topics", "list_documents", "search_reports", "get_report",
              "get_text_unit", "get_job", "stats"}


def _data(result) -> object:
    """A tool's result: sent once, as one JSON text block (no structured copy beside it)."""
    assert not result.is_error, result.content
    assert result.structured_content is None and len(result.content) == 1
    return json.loads(result.content[0].text)


async def _exercise(client) -> dict:
    tools = {t.name for t in (await client.list_tools()).tools}
    asked = _data(await client.call_tool("ask", {"question": "Who is Scrooge?", "level": 0,
                                                 "method": "auto"}))
    hits = _data(await client.call_tool("search_reports", {"query": "Scrooge", "k": 3}))
    report = _data(await client.call_tool("get_report", {"report_id": hits["reports"][0]["id"]}))
    docs = _data(await client.call_tool("list_documents", {}))["documents"]
    bad = await client.call_tool("ask", {"question": "x", "method": "nope"})
    wrong = [await client.call_tool("ask", args) for args in (
        {"question": "   "}, {"question": "x" * 5000}, {"question": "Who?", "level": -1})]
    k = [await client.call_tool("search_reports", {"query": "Scrooge", "k": n})
         for n in (-1, 100_000)]
    resources = {str(r.uri) for r in (await client.list_resources()).resources}
    corpus = await client.read_resource("retag://corpus")
    return {"tools": tools, "ask": asked, "hits": hits, "report": report, "docs": docs,
            "bad": bad, "wrong": wrong, "k": k, "resources": resources, "corpus": corpus}


def _check(got: dict) -> None:
    assert got["tools"] >= READ_TOOLS and not {"ingest", "delete_documents"} & got["tools"]
    a = got["ask"]
    # POST /ask's body (tests/integration/serve/test_operations.py compares the two)
    assert a["trace"]["method"] == "local" and a["trace"]["routing"]["kind"] == "specific"
    assert a["answer"] and a["citations"] and {"kind", "id", "title"} <= a["citations"][0].keys()
    assert a["trace"]["llm"]["calls"] >= 2 and a["answered"] is True
    hits = got["hits"]["reports"]
    assert len(hits) >= 1 and {"id", "title", "summary"} <= hits[0].keys()
    assert "note" not in got["hits"]
    assert got["report"]["entities"] and "findings" in got["report"]
    assert len(got["docs"]) == 4
    # the method enum of the registry, the same one line as POST /ask's 422
    bad = got["bad"].content[0].text
    assert got["bad"].is_error and bad.startswith("method: Input should be 'retag'"), bad
    assert "'retag-general'" in bad and "\n" not in bad
    # an invalid input says what is wrong (not only "Error executing tool ask")
    reasons = [r.content[0].text for r in got["wrong"]]
    assert all(r.is_error for r in got["wrong"]), reasons
    assert "question" in reasons[0] and "at least 1 character" in reasons[0], reasons
    assert "question" in reasons[1] and "at most 4000 characters" in reasons[1], reasons
    assert "level" in reasons[2] and "greater than or equal to 0" in reasons[2], reasons
    low, high = got["k"]  # refused with the bound named, as GET /reports/search does
    assert low.is_error and low.content[0].text == "k: Input should be greater than or equal to 1"
    assert high.is_error and high.content[0].text == "k: Input should be less than or equal to 50"
    assert "retag://corpus" in got["resources"]
    assert got["corpus"].contents


async def test_mcp_over_http(indexed):
    with Running(indexed, BASE_PORT + 5) as srv:
        async with Client(f"{srv.url}/mcp") as client:
            got = await _exercise(client)
    _check(got)


async def test_mcp_write_tools_only_with_allow_writes(indexed):
    with Running(indexed, BASE_PORT + 6, allow_writes=True) as srv:
        async with Client(f"{srv.url}/mcp") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
    assert {"ingest", "delete_documents"} <= tools


async def test_mcp_over_stdio(indexed):
    # this checkout first, then whatever the test run was given
    path = os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, **neo4j_vars(indexed), **double_vars(indexed),
           "MAP_CONTEXT_TOKENS": "1500", "LLM_MAX_RETRIES": "1", "PYTHONPATH": path}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "neo4j_retag.cli", "serve", "--mcp-stdio"],
                                   env=env)
    async with Client(params) as client:
        got = await _exercise(client)
    _check(got)


WRONG = [  # (tool, arguments, what the one line must name)
    ("ask", {"question": 42}, "question: Input should be a valid string"),
    ("ask", {"question": "Who?", "level": [0]}, "level: Input should be a valid integer"),
    ("ask", {"question": "Who?", "topic": {"name": "x"}}, "topic: Input should be a valid"),
    ("search_reports", {"query": "Scrooge", "k": "ten"}, "k: Input should be a valid integer"),
    ("search_reports", {"query": "Marley\x1b[0m"}, "query: control character U+001B"),
    ("get_report", {"report_id": 2**70}, "report_id: 1180591620717411303424 is beyond"),
    ("get_report", {"report_id": -(2**63) - 1}, "beyond a 64-bit integer"),
    ("get_report", {}, "report_id: Field required"),
    ("list_topics", {"unused": "\x00"}, "unused: control character U+0000"),
    ("nope", {}, "Unknown tool"),
]


async def test_mcp_errors_are_one_line(indexed):
    with Running(indexed, BASE_PORT + 7) as srv:
        async with Client(f"{srv.url}/mcp") as client:
            got = [(await client.call_tool(tool, args), want) for tool, args, want in WRONG]
    for result, want in got:
        text = result.content[0].text
        assert result.is_error and want in text, (want, text)
        assert "\n" not in text and "pydantic" not in text and "validation error" not in text


async def test_mcp_while_neo4j_is_down_says_why_in_one_line(indexed):
    from mcp.shared.exceptions import MCPError
    from neo4j import GraphDatabase
    with Running(indexed, BASE_PORT + 7) as srv:
        live = srv.service.graph.driver
        dead = GraphDatabase.driver(f"bolt://127.0.0.1:{BASE_PORT + 9}", auth=("neo4j", "x"))
        try:
            async with Client(f"{srv.url}/mcp") as client:
                srv.service.graph.driver = dead
                errors = []
                for read in (client.list_resources, lambda: client.read_resource(
                        "retag://corpus"), lambda: client.read_resource("retag://topics/x")):
                    with pytest.raises(MCPError) as err:
                        await read()
                    errors.append(err.value.error.message)
                tool = await client.call_tool("list_topics", {})
                srv.service.graph.driver = live
                back = []
                for _ in range(20):  # Neo4j back: answered again once the breaker retries
                    try:
                        back = (await client.list_resources()).resources
                        break
                    except MCPError:
                        await asyncio.sleep(0.5)
        finally:
            srv.service.graph.driver = live
            dead.close()
    for message in [*errors, tool.content[0].text]:
        assert "Neo4j at bolt://" in message and "unreachable" in message, message
        assert "\n" not in message and "Internal server error" not in message
    assert errors[0].startswith("topics could not be listed: Neo4j")
    assert tool.is_error and any(str(r.uri) == "retag://corpus" for r in back)
