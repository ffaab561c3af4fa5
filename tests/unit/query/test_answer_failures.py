"""Issue 21 kind 5: no canned sentence with exit 0. When every rating call of dynamic
selection fails, or the endpoint's content filter blocks the answer call, `ask` fails with the
reason (AnswerFailedError, an LLMError: the CLI exits 1), never the no-answer sentence."""

import json

import pytest

from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import Query, ReportRow, Trace
from neo4j_retag.query.answer.map_reduce import map_reduce
from neo4j_retag.query.basic import ask_rag
from neo4j_retag.query.common import AnswerFailedError, no_answer
from neo4j_retag.query.dynamic import ask_global_dynamic
from tests.conftest import make_settings
from tests.llm_double import Fail, Reply
from tests.unit.query.test_dynamic import TreeGraph

AZURE_400 = {"error": {"code": "content_filter", "status": 400, "message": (
    "The response was filtered due to the prompt triggering Azure OpenAI's content "
    "management policy.")}}


class ChunkGraph:
    def run(self, name, **p):
        assert name == "query/search_text_units"
        return [{"text_unit_id": "c-1", "title": "Harbour", "text": "The ferry sank in 1912."}]


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url)


def test_every_rating_call_failed_is_an_error_not_a_no_answer(dsettings, double):
    def fail(b):
        raise Fail(500)
    double.script["rate"] = fail
    with pytest.raises(AnswerFailedError, match=r"^6 of 6 rating calls failed") as e:
        run_with_llm(dsettings, lambda llm: ask_global_dynamic(
            TreeGraph(), llm, dsettings, Query(question="ghosts?")))
    assert e.value.reason == "rate_failed" and double.count("map") == 0


def test_some_ratings_failed_and_none_relevant_is_an_error(dsettings, double):
    def rate(b):
        if "Ghost" in b["messages"][-1]["content"]:
            raise Fail(500)
        return json.dumps({"rating": 0, "reason": "no"})
    double.script["rate"] = rate
    with pytest.raises(AnswerFailedError, match="rating calls failed and no other report"):
        run_with_llm(dsettings, lambda llm: ask_global_dynamic(
            TreeGraph(), llm, dsettings, Query(question="ghosts?")))


@pytest.mark.parametrize("blocked", [
    lambda b: Reply("", finish_reason="content_filter"),
    lambda b: (_ for _ in ()).throw(Fail(400, AZURE_400)),
])
def test_content_filter_on_the_answer_call(dsettings, double, blocked):
    double.script["answer"] = blocked
    with pytest.raises(AnswerFailedError, match="blocked by the endpoint's content filter"):
        run_with_llm(dsettings, lambda llm: ask_rag(ChunkGraph(), llm, dsettings,
                                                     Query(question="What sank?")))
    assert double.count("answer") == 1  # the same request meets the same filter: not retried


def test_a_refused_answer_call_is_an_error(dsettings, double):
    double.script["answer"] = lambda b: "I'm sorry, but I cannot help with that."
    with pytest.raises(AnswerFailedError, match=r"answer call failed \(refused\)"):
        run_with_llm(dsettings, lambda llm: ask_rag(ChunkGraph(), llm, dsettings,
                                                     Query(question="What sank?")))


def test_content_filter_on_the_reduce_call(dsettings, double):
    double.script["reduce"] = lambda b: Reply("", finish_reason="content_filter")
    reports = [ReportRow(id=i, title=f"R{i}", full_content=f"Report {i}.") for i in range(3)]
    with pytest.raises(AnswerFailedError, match="content filter") as e:
        run_with_llm(dsettings, lambda llm: map_reduce(llm, dsettings, "q?", reports, Trace()))
    assert no_answer(dsettings) not in str(e.value)
