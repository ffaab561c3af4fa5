"""Issue 60: a content filter said as such, with every category it flagged. A filtered global
map batch read "map batches failed (unparseable or the LLM call failed)"; two categories
printed as "(categories: sexual (low): no answer" - jailbreak lost, a bracket missing."""

import pytest

from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import Query, ReportRow, Trace
from neo4j_retag.query.answer.map_reduce import MapFailedError, map_reduce
from neo4j_retag.query.basic import ask_rag
from neo4j_retag.query.common import AnswerFailedError
from tests.conftest import make_settings
from tests.llm_double import Fail, Raw
from tests.unit.query.test_answer_failures import ChunkGraph

RESULTS = {"sexual": {"filtered": True, "severity": "low"},
           "jailbreak": {"filtered": True, "detected": True},
           "violence": {"filtered": False, "severity": "safe"}}
LINE = ("blocked by the endpoint's content filter (categories: sexual (low), jailbreak)")


def _filtered_reply(b):  # finish_reason content_filter, Azure's results on the choice
    return Raw({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "content_filter",
                             "message": {"role": "assistant", "content": ""},
                             "content_filter_results": RESULTS}]})


def _filtered_prompt(b):  # Azure's 400 for a filtered prompt
    raise Fail(400, {"error": {"code": "content_filter", "message": "The response was "
                               "filtered due to the prompt triggering Azure OpenAI's content "
                               "management policy.", "innererror": {
                                   "code": "ResponsibleAIPolicyViolation",
                                   "content_filter_result": RESULTS}}})


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url)


@pytest.mark.parametrize("blocked", [_filtered_reply, _filtered_prompt])
def test_a_filtered_map_batch_says_the_filter_and_its_categories(dsettings, double, blocked):
    double.script["map"] = blocked
    reports = [ReportRow(id=i, title=f"R{i}", full_content=f"Report {i}.") for i in range(3)]
    with pytest.raises(MapFailedError) as e:
        run_with_llm(dsettings, lambda llm: map_reduce(llm, dsettings, "q?", reports, Trace()))
    msg = str(e.value)
    assert msg.startswith("1 of 1 map batches failed, 1 of them " + LINE + ": no answer")
    assert "unparseable" not in msg and e.value.reason == "content_filter"
    assert msg.count("(") == msg.count(")")


@pytest.mark.parametrize("blocked", [_filtered_reply, _filtered_prompt])
def test_every_category_of_a_blocked_answer_is_printed(dsettings, double, blocked):
    double.script["answer"] = blocked
    with pytest.raises(AnswerFailedError) as e:
        run_with_llm(dsettings, lambda llm: ask_rag(ChunkGraph(), llm, dsettings,
                                                     Query(question="What sank?")))
    msg = str(e.value)
    assert msg.startswith("the answer was " + LINE + ": no answer")
    assert msg.count("(") == msg.count(")")
