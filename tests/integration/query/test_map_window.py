"""Map batches that follow the endpoint (issue 32 item 3) on real Neo4j + GDS: a stub
endpoint (the scripted double) refusing prompts longer than its window, as llama.cpp does.
Global search splits each refused batch and answers from every report, the window learnt
sizes the next question's batches; a report that never fits is a listed failure and `ask`
exits 3."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli.main import main
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import answer
from neo4j_retag.tokens import count
from tests.conftest import double_vars, neo4j_vars
from tests.llm_double import Fail, default_map

pytestmark = pytest.mark.integration
LLAMA = ("the request exceeds the available context size, try increasing it "
         "(n_prompt_tokens: {n}, n_ctx: {ctx})")


def _window(ctx, refused):
    def script(body):
        n = count("\n".join(m["content"] for m in body["messages"]))
        if n > ctx:
            refused.append(n)
            raise Fail(400, {"error": {"code": 400, "message": LLAMA.format(n=n, ctx=ctx),
                                       "type": "exceed_context_size_error"}})
        return default_map(body)
    return script


PAD = " The harbour plan and the lantern festival." * 15  # ~135 tokens


def _pad(graph, title_of_one=""):
    """Level-0 reports of ~150 tokens (two batches of them are over a 500-token window); one
    of them with a title of ``title_of_one`` (titles are never cut)."""
    graph.driver.execute_query(
        "MATCH (c:Community {level: 0, scope: 'general'}) WHERE c.report_status = 'ok' "
        "SET c.full_content = c.full_content + $pad", pad=PAD)
    if title_of_one:
        graph.driver.execute_query(
            "MATCH (c:Community {level: 0, scope: 'general'}) WHERE c.report_status = 'ok' "
            "WITH c ORDER BY c.id LIMIT 1 SET c.title = $t", t=title_of_one)
    return graph.driver.execute_query(
        "MATCH (c:Community {level: 0, scope: 'general'}) WHERE c.report_status = 'ok' "
        "RETURN count(*) AS n").records[0]["n"]


def test_refused_batches_are_split_and_the_window_learnt(indexed, graph, double):
    s = indexed.model_copy(update={"map_context_tokens": 2000})
    reports = _pad(graph)
    refused: list[int] = []
    double.script["map"] = _window(500, refused)
    a = run(s, lambda llm: answer("global", graph, llm, s, Query(question="Themes?", level=0)))
    assert refused, "the default batch fits: the test needs more reports"
    assert not a.trace.failures and a.trace.map_failures == 0
    assert a.trace.map_batches > 1 and a.sources
    first = len(refused)
    a2 = run(s, lambda llm: answer("global", graph, llm, s, Query(question="Who?", level=0)))
    assert not a2.trace.failures and len(refused) - first < first  # batches sized by it
    assert reports >= 2


def test_a_report_that_never_fits_is_listed_and_ask_exits_3(indexed, graph, double):
    _pad(graph, "A title" + PAD * 3)
    refused: list[int] = []
    double.script["map"] = _window(340, refused)  # the map prompt's frame alone is ~330
    env = {**neo4j_vars(indexed), **double_vars(indexed), "MAP_CONTEXT_TOKENS": "2000"}
    out = CliRunner().invoke(main, ["ask", "Themes?", "--method", "global", "--level", "0",
                                    "--json"], env=env)
    assert out.exit_code == 1 and "map batches" in out.output, out.output  # none fitted
    double.script["map"] = _window(520, refused)  # each report fits alone but the titled one
    out = CliRunner().invoke(main, ["ask", "Themes?", "--method", "global", "--level", "0",
                                    "--json"], env=env)
    data = json.loads(out.stdout)
    failed = data["trace"]["failures"]
    assert failed and all(f["reason"] == "context_length" for f in failed), out.output
    assert out.exit_code == 3 and "failed: map batch of reports" in out.stderr
