"""Every code block of docs/serve.md, taken from the page as it stands, against a real
`neo4j-retag serve` (the command the page starts, on a test port) over the real Neo4j with
the LLM double: the Python client runs as a script, the MCP configurations are launched or
connected to as an agent would (the SDK's client), and every option of the shell lines is one
`serve` takes. An example that drifts from the server fails here, not in a user's hands."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

pytest.importorskip("mcp", reason="the serve extra is not installed")
from mcp import StdioServerParameters  # noqa: E402
from mcp.client import Client  # noqa: E402

from tests.conftest import double_vars, neo4j_vars  # noqa: E402

from .conftest import BASE_PORT  # noqa: E402

pytestmark = pytest.mark.integration
PAGE = Path(__file__).resolve().parents[3] / "docs" / "serve.md"
PORT = BASE_PORT + 2
DOCUMENTED = "127.0.0.1:8765"  # the address the examples use: serve's default
CLI = Path(sys.executable).with_name("neo4j-retag")


def blocks() -> list[tuple[str, str]]:
    """(language, code) of every fenced block of the page."""
    return re.findall(r"^```(\w+)\n(.*?)^```", PAGE.read_text(), re.S | re.M)


@pytest.fixture
def served(indexed, tmp_path) -> Iterator[dict[str, str]]:
    """`neo4j-retag serve --port PORT` in a process of its own; the environment it got."""
    path = os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, **neo4j_vars(indexed), **double_vars(indexed),
           "MAP_CONTEXT_TOKENS": "1500", "LLM_MAX_RETRIES": "1", "SERVE_PROCESSES": "1",
           "PYTHONPATH": path}
    env.pop("SERVE_API_KEY", None)
    log = tmp_path / "serve.log"  # a file: a pipe nobody reads could fill and stop serve
    with log.open("wb") as out:
        proc = subprocess.Popen([str(CLI), "serve", "--port", str(PORT)], env=env,
                                stdout=subprocess.DEVNULL, stderr=out)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(f"http://127.0.0.1:{PORT}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.3)
        yield env
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_page_has_the_examples_this_test_runs():
    kinds = [kind for kind, _ in blocks()]
    assert kinds.count("python") >= 1 and kinds.count("json") >= 2 and "bash" in kinds
    assert set(kinds) <= {"python", "json", "bash"}, kinds  # a new kind needs its runner here


def test_the_python_client_runs_as_a_script(served, tmp_path):
    scripts = [code for kind, code in blocks() if kind == "python"]
    for i, code in enumerate(scripts):
        assert DOCUMENTED in code
        script = tmp_path / f"example_{i}.py"
        script.write_text(code.replace(DOCUMENTED, f"127.0.0.1:{PORT}"))
        run = subprocess.run([sys.executable, str(script)], env=served, capture_output=True,
                             text=True, timeout=180)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "The main themes are what the reports say." in run.stdout, run.stdout
        assert re.search(r"\d+ LLM calls, \d+ prompt \+ \d+ completion tokens", run.stdout)


async def test_the_agent_configurations_connect(served):
    configs = [json.loads(code)["mcpServers"]["neo4j-retag"] for kind, code in blocks()
               if kind == "json"]
    launched = next(c for c in configs if "command" in c)
    assert Path(launched["command"]).name == CLI.name
    env = {**served, **{k: served.get(k, v) for k, v in launched["env"].items()}}
    stdio = StdioServerParameters(command=str(CLI), args=launched["args"], env=env)
    remote = next(c for c in configs if c.get("type") == "http")
    assert remote["headers"] == {"Authorization": "Bearer ${SERVE_API_KEY}"}
    url = remote["url"].replace(DOCUMENTED, f"127.0.0.1:{PORT}")
    assert url != remote["url"]
    for server in (stdio, url):
        async with Client(server) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool("ask", {"question": "Who is Scrooge?"})
        assert {"ask", "search_reports"} <= tools
        assert not result.is_error and json.loads(result.content[0].text)["answer"]


def test_every_option_of_the_shell_lines_is_one_serve_takes():
    help_text = subprocess.run([str(CLI), "serve", "--help"], capture_output=True, text=True,
                               timeout=60, env={**os.environ, "COLUMNS": "200"}).stdout
    taken = set(re.findall(r"--[a-z][\w-]+", help_text))
    shell = "\n".join(code for kind, code in blocks() if kind == "bash")
    lines = re.sub(r"\\\n\s*", " ", shell).splitlines()
    used = {opt for line in lines if "neo4j-retag serve" in line
            for opt in re.findall(r"(?<=\s)--[a-z][\w-]+", line.split("#")[0])}
    assert {"--mcp-stdio", "--host", "--allow-writes", "--ssl-certfile"} <= used
    assert used <= taken, used - taken
