"""The reduce step budgeted like map (issue 46 item 5) on real Neo4j + GDS: `ask --json`
against a stub endpoint (the scripted double) with a small window, refusing any prompt over
it as llama.cpp does. The map batches and the reduce are split to fit (partial reduces, their
own stage in the trace's cost), the answer comes with exit 0 and no failure; the second
question meets no refusal at all (the window learnt)."""

import json
import re

import pytest
from click.testing import CliRunner

from neo4j_retag.cli.main import main
from neo4j_retag.tokens import count
from tests.conftest import double_vars, neo4j_vars
from tests.llm_double import WORDS, Fail, default_reduce

pytestmark = pytest.mark.integration
LLAMA = ("the request exceeds the available context size, try increasing it "
         "(n_prompt_tokens: {n}, n_ctx: {ctx})")
WINDOW = 700


def _many_points(body):
    """Five grounded points per report (quoting its row): more points than the window holds."""
    rows = re.findall(r"^(\d+),(.*)$", body["messages"][-1]["content"], re.M)
    return json.dumps({"points": [
        {"description": f"Finding {k} of report {i}: " + " ".join(WORDS.findall(row)[k:k + 12])
         + f" [Data: Reports ({i})]", "score": 90 - k, "reports": [int(i)]}
        for i, row in rows for k in range(5)]})


def _windowed(answer, refused, sizes, window=None):
    window = window or WINDOW

    def script(body):
        n = count("\n".join(m["content"] for m in body["messages"]))
        if n > window:
            refused.append(n)
            raise Fail(400, {"error": {"code": 400, "message": LLAMA.format(n=n, ctx=window),
                                       "type": "exceed_context_size_error"}})
        sizes.append(n)
        return answer(body)
    return script


def test_a_reduce_over_a_small_window_is_split_and_answers(indexed, graph, double):
    graph.driver.execute_query(  # reports of ~150 tokens: many map points
        "MATCH (c:Community {level: 0, scope: 'general'}) WHERE c.report_status = 'ok' "
        "SET c.full_content = c.full_content + $pad",
        pad=" The harbour plan and the lantern festival." * 15)
    refused, sizes = [], []
    double.script["map"] = _windowed(_many_points, refused, sizes)
    double.script["reduce"] = _windowed(default_reduce, refused, sizes)
    env = {**neo4j_vars(indexed), **double_vars(indexed), "MAP_CONTEXT_TOKENS": "8000",
           "REDUCE_CONTEXT_TOKENS": "8000", "LLM_MAX_TOKENS": "100"}
    args = ["ask", "Themes?", "--method", "global", "--level", "0", "--json"]
    out = CliRunner().invoke(main, args, env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    tr = data["trace"]
    assert refused and not tr["failures"] and data["sources"], tr["notes"]
    assert tr["llm_stages"]["reduce_partial"]["calls"] >= 1, tr["llm_stages"]
    assert any("hierarchical reduce" in n for n in tr["notes"]), tr["notes"]
    assert max(sizes) <= WINDOW
    first = len(refused)
    out = CliRunner().invoke(main, [*args[:1], "Who organised the festival?", *args[2:]],
                             env=env)
    assert out.exit_code == 0 and len(refused) == first, out.output  # sized by the window


def test_a_256_token_local_server_is_one_line_and_json(indexed, double):
    """LLM_CTX=256 on the local server (the double on LLM_PORT): global search fails before
    any call, naming LLM_CTX; rag's answer call, refused by the server, names it too; both
    print their JSON under --json, with no retry."""
    refused, sizes = [], []
    double.script["answer"] = _windowed(lambda body: "An answer.", refused, sizes, 256)
    port = double.base_url.rsplit(":", 1)[1].split("/")[0]
    env = {**neo4j_vars(indexed), **double_vars(indexed), "OPENAI_BASE_URL": "",
           "LLM_PORT": port, "LLM_CTX": "256", "OPENAI_MODEL": "double",
           "EMBEDDING_BASE_URL": double.base_url}
    before = double.count()
    out = CliRunner().invoke(main, ["ask", "Themes?", "--method", "global", "--level", "0",
                                    "--json"], env=env)
    data = json.loads(out.stdout)
    assert out.exit_code == 2 and "raise LLM_CTX (now 256" in data["error"], out.output
    assert double.count() == before and len(out.stderr.strip().splitlines()) == 1
    rag = ["ask", "What did Scrooge do?", "--method", "rag", "--retrieval", "bm25", "--json"]
    out = CliRunner().invoke(main, rag, env=env)  # no text unit fits the scaled budget
    data = json.loads(out.stdout)
    assert out.exit_code == 2 and "REDUCE_CONTEXT_TOKENS" in data["error"], out.output
    assert "LLM_CTX 256" in data["error"] and not refused
    out = CliRunner().invoke(main, rag, env={**env, "REDUCE_CONTEXT_TOKENS": "400"})
    data = json.loads(out.stdout)  # the answer call is refused by the server
    assert out.exit_code == 1 and "raise LLM_CTX (now 256" in data["error"], out.output
    assert len(refused) == 1 and len(out.stderr.strip().splitlines()) == 1  # not retried
