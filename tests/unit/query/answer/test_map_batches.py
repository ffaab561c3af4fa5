"""Map batches that follow the endpoint (issue 32 item 3), against the scripted double
refusing prompts over a window in each provider's words: the batch is split and mapped again,
the window learnt is remembered, a batch that cannot fit is a listed failure."""

import json

import pytest

from neo4j_retag.errors import LLMError
from neo4j_retag.llm import run_with_llm
from neo4j_retag.llm.endpoint import context_refused, window_in
from neo4j_retag.model import ReportRow, Trace
from neo4j_retag.query.answer.map_batches import WINDOW_KEY
from neo4j_retag.query.answer.map_reduce import MapFailedError, map_reduce
from neo4j_retag.tokens import count
from tests.conftest import make_settings
from tests.llm_double import Fail, default_map

WORDINGS = [  # (message, the window it names)
    ("This model's maximum context length is 2048 tokens. However, your messages resulted "
     "in 3000 tokens.", 2048),
    ("{'code': 400, 'message': 'the request exceeds the available context size, try "
     "increasing it', 'type': 'exceed_context_size_error', 'n_prompt_tokens': 3001, "
     "'n_ctx': 2048}", 2048),
    ("context_length_exceeded", None),
]


@pytest.mark.parametrize(("message", "window"), WORDINGS)
def test_each_providers_wording_is_a_context_refusal(message, window):
    assert context_refused(message) and window_in(message) == window
    assert not context_refused("bad input") and not context_refused("input too long")


def _reports(n=8, words=300):
    return [ReportRow(id=i, title=f"Report {i}", full_content=f"Finding {i}: " +
                      "the harbour plan and the lantern festival. " * (words // 8))
            for i in range(n)]


def _refusing(limit, message, refused):
    """A map step refusing prompts over ``limit`` tokens with ``message``."""
    def script(body):
        n = count("\n".join(m["content"] for m in body["messages"]))
        if n > limit:
            refused.append(n)
            raise Fail(400, {"error": {"code": 400, "message": message,
                                       "type": "exceed_context_size_error"}})
        return default_map(body)
    return script


def _ask(settings, reports):
    trace = Trace()
    answer = run_with_llm(settings, lambda llm: map_reduce(llm, settings, "What themes?",
                                                           reports, trace))
    return answer, trace


@pytest.mark.parametrize(("message", "window"), WORDINGS)
def test_a_refused_batch_is_split_and_the_window_remembered(tmp_path, double, message,
                                                             window):
    s = make_settings(tmp_path, {}, openai_base_url=double.base_url)
    refused: list[int] = []
    double.script["map"] = _refusing(1500, message, refused)
    answer, trace = _ask(s, _reports())
    assert refused and not trace.failures and answer.sources  # every batch mapped, split
    assert trace.map_batches > 1
    caps = json.loads((s.cache_dir / "endpoint-capabilities.json").read_text())
    learnt = next(iter(caps.values()))[WINDOW_KEY]
    assert learnt == (window or learnt) and learnt < 8000
    # issue 60: the first batch went alone and the rest were packed by the window its
    # refusal named (no halving, no batch refused in flight); unnamed, each refusal bounds it
    assert len(refused) == 1 if window else len(refused) <= 4
    # the next question sizes its batches by the window learnt: none as large as a refused
    # one (the endpoint refusing within the window it names lowers it), every batch mapped
    before = len(refused)
    _, again = _ask(s.model_copy(update={"llm_max_tokens": 256}), _reports())
    assert not again.failures and all(n < min(refused[:before]) for n in refused[before:])


def test_a_batch_that_cannot_fit_is_a_listed_failure(tmp_path, double):
    s = make_settings(tmp_path, {}, openai_base_url=double.base_url)
    refused: list[int] = []
    # one report over any size: refused however it is cut; the others map
    message = "maximum context length is 100 tokens"

    def script(body):
        if "Report 0" in body["messages"][-1]["content"]:
            refused.append(1)
            raise Fail(400, {"error": {"message": message}})
        return default_map(body)
    double.script["map"] = script
    answer, trace = _ask(s, _reports(4))
    failed = [f for f in trace.failures if f.item == "map batch of reports [0]"]
    assert len(failed) == 1 and failed[0].reason == "context_length"
    assert trace.map_failures == 1 and answer.sources  # the other reports answered
    double.script["map"] = lambda body: (_ for _ in ()).throw(
        Fail(400, {"error": {"message": message}}))
    with pytest.raises(MapFailedError):  # every batch refused: an error, not a no-answer
        _ask(s.model_copy(update={"llm_cache": False}), _reports(2))  # not the first's replies
    assert issubclass(MapFailedError, LLMError)


def test_an_oversized_report_after_a_batch_is_cut_too():
    from neo4j_retag.query.answer.map_batches import batches, report_table
    small = [ReportRow(id=i, title=f"R{i}", full_content="word " * 100) for i in range(6)]
    huge = ReportRow(id=99, title="Hub", full_content="claim text " * 20000)
    for seed in range(5):  # wherever the shuffle puts it
        groups = batches([*small, huge], 2000, seed, "cl100k_base")
        assert all(count(report_table(g)) <= 2000 for g in groups)
        assert sorted(r.id for g in groups for r in g) == [0, 1, 2, 3, 4, 5, 99]
