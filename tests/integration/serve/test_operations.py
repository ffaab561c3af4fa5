"""Every operation of the table (api/operations.py) through HTTP and through MCP (the SDK's
own client) on one server against the real Neo4j: the same answer (or, where each call
makes something new - a job, a delete - the same shape), and the same one line for the
same bad input."""

from __future__ import annotations

import time
from typing import Any

import httpx2 as httpx
import pytest

pytest.importorskip("mcp", reason="the serve extra is not installed")
from mcp.client import Client  # noqa: E402

from neo4j_retag.api.operations import OPERATIONS  # noqa: E402
from neo4j_retag.db import Graph  # noqa: E402

from .conftest import BASE_PORT, Running  # noqa: E402

pytestmark = pytest.mark.integration

# (operation, good arguments, bad arguments and the one line each must give on both);
# "{doc}", "{report}", "{unit}", "{job}" are filled in from the indexed graph
CASES: list[tuple[str, dict[str, Any], list[tuple[dict[str, Any], str]]]] = [
    ("list_documents", {}, [({"limit": 5}, "limit: Extra inputs are not permitted")]),
    ("stats", {}, []),
    ("list_topics", {}, []),
    ("search_reports", {"query": "Scrooge", "k": 2}, [
        ({"query": "Scrooge", "k": 51}, "k: Input should be less than or equal to 50"),
        ({"query": "Scrooge", "k": 0}, "k: Input should be greater than or equal to 1"),
        ({"query": "Scrooge", "k": "ten"}, "k: Input should be a valid integer, unable to "
                                          "parse string as an integer"),
        ({"k": 3}, "query: Field required"),
        ({"query": "Scrooge", "top_k": 3}, "top_k: Extra inputs are not permitted")]),
    ("get_report", {"report_id": "{report}"}, [
        ({"report_id": 987654}, "no community report 987654"),
        ({"report_id": "x"}, "report_id: Input should be a valid integer, unable to parse "
                             "string as an integer")]),
    ("get_text_unit", {"unit_id": "{unit}"}, [({"unit_id": "nope"}, "no text unit nope")]),
    ("ingest", {"paths": ["new.txt"], "topics": False}, [
        ({"paths": []}, "paths: List should have at least 1 item after validation, not 0"),
        ({"paths": ["../x.txt"]}, "'..'"),
        ({"paths": ["new.txt"], "topic": False}, "topic: Extra inputs are not permitted")]),
    ("get_job", {"job_id": "{job}"}, [({"job_id": "nope"}, "no job nope")]),
    ("delete_documents", {"ids": ["{doc}"]}, [
        ({"ids": ["nosuchdocument"]}, "no such document: nosuchdocument"),
        ({"ids": []}, "ids: List should have at least 1 item after validation, not 0")]),
]
NEW_EACH_CALL = {"ingest", "delete_documents"}  # compared by shape: each call makes its own


def _http(c: httpx.Client, name: str, args: dict[str, Any]) -> tuple[bool, Any]:
    """(ok, the JSON or the error's line) of the operation's route."""
    op = OPERATIONS[name]
    in_path = {k: v for k, v in args.items() if f"{{{k}}}" in op.path}
    rest = {k: v for k, v in args.items() if k not in in_path}
    path = op.path.format(**in_path)
    r = c.get(path, params=rest) if op.method == "GET" else c.post(path, json=rest)
    body = r.json()
    return r.is_success, body if r.is_success else body["error"]


async def _mcp(client: Client, name: str, args: dict[str, Any]) -> tuple[bool, Any]:
    import json
    result = await client.call_tool(name, args)
    text = result.content[0].text
    return (False, text) if result.is_error else (True, json.loads(text))


def _shape(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_shape(v[0])] if v else []
    return type(v).__name__


def _fill(args: dict[str, Any], ids: dict[str, Any]) -> dict[str, Any]:
    def one(v: Any) -> Any:
        if isinstance(v, str) and v.startswith("{") and v.endswith("}"):
            return ids[v[1:-1]]
        return [one(x) for x in v] if isinstance(v, list) else v
    return {k: one(v) for k, v in args.items()}


def _wait(c: httpx.Client, job: str) -> None:
    for _ in range(600):
        if c.get(f"/jobs/{job}").json()["status"] != "running":
            return
        time.sleep(0.2)


def test_the_table_is_covered():
    assert {name for name, _, _ in CASES} == set(OPERATIONS)


async def test_http_and_mcp_give_one_shape_and_one_error_per_operation(indexed, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "new.txt").write_text("Belle married a kind man. Scrooge saw Belle's children.")
    with Graph(indexed) as g:
        unit = g.driver.execute_query("MATCH (c:Chunk) RETURN c.id AS id LIMIT 1",
                                      database_=g.database).records[0]["id"]
    problems = []
    with Running(indexed, BASE_PORT + 8, allow_writes=True, serve_ingest_root=root) as srv, \
            httpx.Client(base_url=srv.url, timeout=60) as c:
        docs = c.get("/documents").json()["documents"]
        ids = {"unit": unit, "doc": docs[0]["id"],
               "report": c.get("/reports/search", params={"query": "Scrooge"}).json()[
                   "reports"][0]["id"]}
        async with Client(f"{srv.url}/mcp") as client:
            for name, good, bad in CASES:
                if name == "delete_documents":  # one document each: the same one goes once
                    h = _http(c, name, {"ids": [docs[0]["id"]]})
                    m = await _mcp(client, name, {"ids": [docs[1]["id"]]})
                else:
                    h = _http(c, name, _fill(good, ids))
                    m = await _mcp(client, name, _fill(good, ids))
                if name == "ingest":  # both jobs end before the next operation reads
                    ids["job"] = h[1]["id"]
                    for job in (h[1]["id"], m[1]["id"]):
                        _wait(c, job)
                same = ((_shape(h[1]) == _shape(m[1])) if name in NEW_EACH_CALL
                        else h[1] == m[1])
                if not (h[0] and m[0] and same):
                    problems.append(f"{name} {good}: HTTP {h} / MCP {m}")
                for args, want in bad:
                    h, m = _http(c, name, args), await _mcp(client, name, args)
                    if h[0] or m[0] or h[1] != m[1] or want not in h[1]:
                        problems.append(f"{name} {args}: HTTP {h[1]!r} / MCP {m[1]!r}")
        # ask: POST /ask and the MCP tool give one body (its values differ: seconds, ids)
        body = {"question": "Who is Scrooge?", "method": "local"}
        h = c.post("/ask", json=body)
        async with Client(f"{srv.url}/mcp") as client:
            m = await _mcp(client, "ask", body)
            bad = await _mcp(client, "ask", {"question": "Who?", "method": "nope"})
        if not (h.is_success and m[0] and _keys(h.json()) == _keys(m[1])):
            problems.append(f"ask: HTTP {_keys(h.json())} / MCP {m}")
        wrong = c.post("/ask", json={"question": "Who?", "method": "nope"}).json()["error"]
        if bad[0] or bad[1] != wrong:
            problems.append(f"ask's unknown method: HTTP {wrong!r} / MCP {bad[1]!r}")
    assert not problems, "\n".join(problems)


def _keys(v: Any) -> Any:
    """The keys of a JSON body, nested (lists by their first item): its shape without types,
    which a null-or-value field changes from answer to answer."""
    if isinstance(v, dict):
        return {k: _keys(x) for k, x in v.items()}
    return [_keys(v[0])] if isinstance(v, list) and v else None
