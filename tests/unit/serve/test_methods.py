"""The HTTP request model (and its OpenAPI), the MCP ``ask`` tool and the page's method list
are built from the query registry: a method registered in a test shows in each."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from neo4j_retag import query
from neo4j_retag.config import ServeSettings
from neo4j_retag.query.ask import ask_model
from tests.unit.query.test_ask import ECHO


@pytest.fixture
def echo(monkeypatch):
    monkeypatch.setitem(query.METHODS, "echo", ECHO)


def test_a_registered_method_is_in_the_http_model_and_openapi(echo):
    from neo4j_retag.serve.http import create_app
    service = SimpleNamespace(allow_writes=False, settings=SimpleNamespace(
        serve=ServeSettings()))
    schema = create_app(service).openapi()
    body = schema["paths"]["/ask"]["post"]["requestBody"]["content"]["application/json"]
    model = schema["components"]["schemas"][body["schema"]["$ref"].rsplit("/", 1)[1]]
    props = model["properties"]
    assert "echo" in props["method"]["enum"] and props["method"]["default"] == "auto"
    depth = next(x for x in props["depth"]["anyOf"] if x.get("type") == "integer")
    assert (depth["minimum"], depth["maximum"]) == (2, 7)
    assert next(x for x in props["colour"]["anyOf"] if "enum" in x)["enum"] == ["red", "blue"]
    with pytest.raises(ValidationError, match="depth"):
        ask_model()(question="q", method="echo", depth=8)
    with pytest.raises(ValidationError, match="method"):
        ask_model()(question="q", method="nope")


def test_a_registered_method_is_in_the_mcp_schema_and_the_page(echo):
    from mcp.server.mcpserver import MCPServer

    from neo4j_retag.serve.http import page_with_methods
    from neo4j_retag.serve.mcp import ask_tool
    server = MCPServer("t")
    server.tool(structured_output=False)(ask_tool(SimpleNamespace(allow_writes=False)))
    (tool,) = asyncio.run(server.list_tools())
    props = tool.input_schema["properties"]
    assert "echo" in props["method"]["enum"] and props["method"]["default"] == "auto"
    assert "echo: repeats the question" in tool.description
    depth = next(x for x in props["depth"]["anyOf"] if x.get("type") == "integer")
    assert (depth["minimum"], depth["maximum"]) == (2, 7)
    page = page_with_methods()
    assert '<option value="echo" title="repeats the question (a test method)">echo</option>' \
        in page
    assert '<option value="auto"' in page and "<!-- methods -->" not in page
