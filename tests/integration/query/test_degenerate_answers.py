"""Issue 30 item 2 on the real Neo4j + GDS: the quickstart's degenerate SmolLM2 outputs,
scripted as the answer step's replies, never come out as answers - each method asks again
once with a repetition penalty, then gives the honest no-answer and `ask` exits 1; a good
second reply is the answer."""

import json

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.query.common import no_answer
from tests.conftest import double_vars, neo4j_vars
from tests.unit.checks.test_degenerate import QUICKSTART

pytestmark = pytest.mark.integration
QUESTION = "What are the main themes of this corpus?"
# the method and the stage that writes its answer
ANSWER_STEP = {"global": "reduce", "retag": "reduce", "lazy": "lazy_answer", "rag": "answer"}


def ask(settings, method, question=QUESTION):
    env = neo4j_vars(settings) | double_vars(settings) | {"EMBEDDINGS": "false"}
    return CliRunner().invoke(main, ["ask", question, "--method", method, "--json"], env=env)


@pytest.mark.parametrize("method", ANSWER_STEP)
def test_degenerate_replies_are_never_the_answer(indexed, double, method):
    stage = ANSWER_STEP[method]
    # retag's BM25 finds the double's reports by the names they hold
    double.script["keywords"] = lambda b: json.dumps({"keywords": ["Scrooge", "Marley"]})
    for name, text in QUICKSTART.items():
        double.calls.clear()
        double.script[stage] = lambda b, text=text: text
        # rag's BM25 needs a word of the text units
        out = ask(indexed, method, QUESTION.replace("corpus", "story of Scrooge"))
        assert out.exit_code == 1, (name, out.output)
        answer = json.loads(out.stdout)
        assert answer["answer"] == no_answer(indexed), name
        assert answer["trace"]["no_answer"].startswith(f"the {stage} step gave no usable answer")
        assert [f["reason"] for f in answer["trace"]["failures"]] == ["degenerate"]
        assert f"no answer: the {stage} step" in out.stderr and "Traceback" not in out.output
        # issue 45: the refusal can be judged from the trace - rule, numbers, text
        refusal = answer["trace"]["refusals"][-1]
        assert answer["answered"] is False and refusal["stage"] == stage, name
        assert refusal["rule"] and refusal["text"] == text[:500], name
        assert f"refused: {stage} refused ({refusal['rule']})" in out.stderr, name
        sent = [b for s, b in double.calls if s == stage]
        assert len(sent) == 2 and sent[1].get("frequency_penalty") == 0.5, name


def test_a_good_second_reply_is_the_answer(indexed, double):
    # grounded in the double's map points, which quote the reports' names
    replies = [QUICKSTART["lazy 2"], "Scrooge meets Marley. [Data: Reports (0)]"]
    double.script["reduce"] = lambda b: replies.pop(0) if len(replies) > 1 else replies[0]
    out = ask(indexed, "global")
    assert out.exit_code == 0, out.output
    answer = json.loads(out.stdout)
    assert answer["answer"].startswith("Scrooge meets") and answer["trace"]["no_answer"] is None
    assert answer["trace"]["llm_stages"]["reduce"]["calls"] == 2


def test_an_empty_retrieval_is_the_honest_no_answer_and_exit_1(indexed, double):
    double.calls.clear()  # the fixture's ingest
    out = ask(indexed, "rag", "What about the zeppelins?")
    assert out.exit_code == 1, out.output
    answer = json.loads(out.stdout)
    assert answer["answer"] == no_answer(indexed) and double.count() == 0
    assert "no answer: bm25 retrieved no text unit for the question" in out.stderr


INJECTED = ['{"verdict": "WITHHELD", "reason": "policy"} That is all.',
            "{'verdict': 'WITHHELD', 'reason': 'policy'}"]


@pytest.mark.parametrize("method", [*ANSWER_STEP, "local", "drift"])
def test_both_injected_forms_are_refused_in_every_method(indexed, double, method):
    # issue 45: JSON followed by prose and a Python dict were printed as the answer by rag,
    # local, drift and lazy with exit 0
    stage = {**ANSWER_STEP, "local": "answer", "drift": "drift_reduce"}[method]
    double.script["keywords"] = lambda b: json.dumps({"keywords": ["Scrooge", "Marley"]})
    for text in INJECTED:
        double.script[stage] = lambda b, text=text: text
        out = ask(indexed, method, QUESTION.replace("corpus", "story of Scrooge"))
        assert out.exit_code == 1, (method, text, out.output)
        answer = json.loads(out.stdout)
        assert "WITHHELD" not in answer["answer"] and answer["answered"] is False
        assert answer["trace"]["refusals"][-1]["rule"] == "json", answer["trace"]["refusals"]
