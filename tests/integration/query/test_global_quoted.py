"""`global-quoted` (query/global_quoted.py), declared in its module alone: its answer quotes the
sentences a level's reports rest on without an answer call; its setting (GLOBAL_QUOTED_COVER)
and its option (``cover``) reach it from the CLI, HTTP, MCP and eval, on a real graph (a small
model's: reports composed from evidence sentences) with the LLM double."""

from __future__ import annotations

import asyncio
import json

import httpx2 as httpx
import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.eval.run import method_spec
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import answer
from neo4j_retag.query.global_quoted import GlobalQuotedOptions, GlobalQuotedSettings
from tests.conftest import corpus, double_vars, ingest, neo4j_vars

pytestmark = pytest.mark.integration
BROAD = "What are the overarching motifs?"  # no word of it is in the sources: cover or nothing
WRITTEN = {"map", "reduce", "answer"}  # the stages a written answer calls


@pytest.fixture
def indexed(settings, graph, tmp_path):
    """A small model's index of four story files: its reports rest on evidence sentences."""
    settings = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20,
                                           "llm_class": "small", "embeddings": False})
    ingest(settings, graph, [corpus(tmp_path, 4)])
    return settings


def _ask(settings, graph, question, **options):
    return run(settings, lambda llm: answer("global-quoted", graph, llm, settings, Query(
        question=question, level=0, options=GlobalQuotedOptions(**options))))


def test_its_answer_quotes_the_reports_and_its_setting_and_option_choose_cover(indexed, graph,
                                                                               double):
    before = {k: double.count(k) for k in WRITTEN}
    a = _ask(indexed, graph, BROAD)
    assert (a.trace.method, a.trace.answer) == ("global-quoted", "quote")
    assert a.citations and a.trace.reports_retrieved >= 1 and a.trace.no_answer is None
    assert {k: double.count(k) for k in WRITTEN} == before  # nothing written
    # GLOBAL_QUOTED_COVER=false: nothing shares a word with the question, map-reduce answers
    off = indexed.model_copy(update={"global_quoted_cover": False})
    assert off.method(GlobalQuotedSettings).cover is False
    b = _ask(off, graph, BROAD)
    assert b.trace.answer == "map-reduce" and any("nothing to quote" in n for n in b.trace.notes)
    assert _ask(off, graph, BROAD, cover=True).trace.answer == "quote"  # the option wins
    # a question sharing words is quoted without cover too
    assert _ask(off, graph, "Who is Scrooge?").trace.answer == "quote"


def test_cli_and_eval_reach_its_option_and_setting(indexed, graph, double, tmp_path):
    env = {**neo4j_vars(indexed), **double_vars(indexed), "LLM_CLASS": "small",
           "EMBEDDINGS": "false"}
    out = CliRunner().invoke(main, ["ask", "--help"], terminal_width=400)
    assert "global-quoted" in out.output and "--cover / --no-cover" in out.output
    answered = {}
    for flags, extra in (([], {}), (["--no-cover"], {}), ([], {"GLOBAL_QUOTED_COVER": "false"}),
                         (["--cover"], {"GLOBAL_QUOTED_COVER": "false"})):
        r = CliRunner().invoke(main, ["ask", BROAD, "--method", "global-quoted", "--level", "0",
                                      *flags, "--json"], env={**env, **extra})
        assert r.exit_code == 0, r.output
        answered[(*flags, *extra)] = json.loads(r.stdout)["trace"]["answer"]
    assert answered == {(): "quote", ("--no-cover",): "map-reduce",
                        ("GLOBAL_QUOTED_COVER",): "map-reduce", ("--cover", "GLOBAL_QUOTED_COVER"):
                        "quote"}
    shown = CliRunner().invoke(main, ["config"], env={**env, "GLOBAL_QUOTED_COVER": "false"},
                               terminal_width=200)
    assert any("global_quoted_cover" in line and "False" in line
               for line in shown.output.splitlines())
    # eval: each arm its own method
    assert method_spec("global-quoted@cover=false") == ("global-quoted", {"cover": False})
    questions = tmp_path / "q.txt"
    questions.write_text(f"{BROAD}\n")
    r = CliRunner().invoke(main, ["eval", str(questions), "--methods",
                                  "global-quoted,global-quoted@cover=false", "--no-judge",
                                  "--level", "0", "--out", str(tmp_path / "ev"), "--json"],
                           env=env)
    assert r.exit_code == 0, r.output
    saved = json.loads((tmp_path / "ev" / "answers.json").read_text())
    assert {a["method"]: a["trace"]["answer"] for a in saved} == {
        "global-quoted": "quote", "global-quoted@cover=false": "map-reduce"}
    bad = CliRunner().invoke(main, ["eval", str(questions), "--methods",
                                    "global-quoted@cover=maybe", "--no-judge"], env=env)
    assert bad.exit_code == 2 and "cover: Input should be a valid boolean" in bad.output


def test_http_and_mcp_reach_its_option(indexed, graph, double):
    from mcp.client import Client

    from tests.integration.serve.conftest import BASE_PORT, Running
    with Running(indexed, BASE_PORT + 7) as srv:
        with httpx.Client(base_url=srv.url, timeout=120) as c:
            body = {"question": BROAD, "method": "global-quoted", "level": 0}
            got = {cover: c.post("/ask", json={**body, "cover": cover}).json()["trace"]["answer"]
                   for cover in (True, False)}
            assert got == {True: "quote", False: "map-reduce"}
            wrong = c.post("/ask", json={**body, "cover": "maybe"})
            assert wrong.status_code == 422 and "cover" in wrong.text
            schema = c.get("/openapi.json").json()["components"]["schemas"]
            assert any("cover" in s.get("properties", {}) for s in schema.values())

        async def mcp() -> dict:
            async with Client(f"{srv.url}/mcp") as client:
                result = await client.call_tool("ask", {**body, "cover": False})
                return json.loads(result.content[0].text)

        assert asyncio.run(mcp())["trace"]["answer"] == "map-reduce"
