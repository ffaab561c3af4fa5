"""The reduce step budgeted like map (issue 46 item 5), against the scripted double: points
over the endpoint's window are reduced level by level (partial reduces, their own stage), a
refused reduce teaches the window, points that fit cost nothing more, a report cut to fit the
map budget is noted, and a reply whose usage counts far fewer prompt tokens than were sent is
noted as a silent truncation."""

import re

import pytest

from neo4j_retag.errors import ConfigError, LLMError
from neo4j_retag.llm import LLM, Usage, run_with_llm
from neo4j_retag.model import ReportRow, Trace
from neo4j_retag.query.answer.map_batches import WINDOW_KEY, batches
from neo4j_retag.query.answer.map_reduce import map_reduce
from neo4j_retag.query.answer.reduce_fit import PARTIAL_RESPONSE
from neo4j_retag.stages import Stage
from neo4j_retag.tokens import count
from tests.conftest import make_settings
from tests.llm_double import Fail, Reply, default_reduce

TEXT = Stage.DOCTOR  # a stage the double answers with its "text" handler
LLAMA = ("the request exceeds the available context size, try increasing it "
         "(n_prompt_tokens: {n}, n_ctx: {ctx})")


def _reports(n=30):
    return [ReportRow(id=i, title=f"Report {i}", full_content=f"Finding {i}: the harbour "
                      f"plan of district {i} and the lantern festival of quarter {i}. " * 4)
            for i in range(n)]


def _tokens(body):
    return count("\n".join(m["content"] for m in body["messages"]))


def _windowed(limit, seen, refused):
    """The reduce kind of a server with a ``limit``-token window (llama.cpp's refusal)."""
    def script(body):
        n = _tokens(body)
        if n > limit:
            refused.append(n)
            raise Fail(400, {"error": {"code": 400, "message": LLAMA.format(n=n, ctx=limit),
                                       "type": "exceed_context_size_error"}})
        seen.append((PARTIAL_RESPONSE in body["messages"][0]["content"], n))
        return default_reduce(body)
    return script


def _settings(tmp_path, double, **extra):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url, map_context_tokens=400,
                         reduce_context_tokens=8000, llm_max_tokens=200, **extra)


def _ask(settings, reports, window=None):
    trace, usage = Trace(), Usage()

    async def go(llm: LLM):
        if window:
            llm.caps.set(WINDOW_KEY, window)
        return await map_reduce(llm, settings, "What themes?", reports, trace)
    return run_with_llm(settings, go, usage), trace, usage


def test_a_refused_reduce_is_split_into_partial_reduces(tmp_path, double):
    s = _settings(tmp_path, double)
    seen, refused = [], []
    double.script["reduce"] = _windowed(1000, seen, refused)
    answer, trace, usage = _ask(s, _reports())
    assert refused, "the points fit the window: the test needs more of them"
    assert trace.points_in_reduce == trace.points_kept > 20
    partial = [n for is_partial, n in seen if is_partial]
    final = [n for is_partial, n in seen if not is_partial]
    assert len(partial) >= 2 and len(final) == 1 and max(n for _, n in seen) <= 1000
    # the partial reduces have their own stage
    assert usage.stages[Stage.REDUCE_PARTIAL].calls == len(partial)
    assert usage.stages[Stage.REDUCE_PARTIAL].prompt_tokens > 0
    assert not trace.failures and answer.sources and trace.no_answer is None
    assert any("hierarchical reduce" in n for n in trace.notes), trace.notes
    assert any("refused as over the endpoint's window" in n for n in trace.notes)
    assert re.search(r"\[Data: Reports \(\d", answer.answer), answer.answer  # cites through


def test_a_known_window_is_met_without_a_refusal(tmp_path, double):
    s = _settings(tmp_path, double)
    seen, refused = [], []
    double.script["reduce"] = _windowed(1000, seen, refused)
    answer, trace, usage = _ask(s, _reports(), window=1000)
    assert not refused and usage.stages[Stage.REDUCE_PARTIAL].calls >= 2
    assert not trace.failures and answer.sources
    note = next(n for n in trace.notes if "hierarchical reduce" in n)
    assert f"{usage.stages[Stage.REDUCE_PARTIAL].calls} reduce_partial call" in note


def test_points_that_fit_cost_no_partial_reduce(tmp_path, double):
    s = _settings(tmp_path, double)
    seen, refused = [], []
    double.script["reduce"] = _windowed(8000, seen, refused)
    answer, trace, usage = _ask(s, _reports(6), window=8000)
    assert Stage.REDUCE_PARTIAL not in usage.stages and len(seen) == 1 and not refused
    assert not any("hierarchical" in n for n in trace.notes) and answer.sources


def test_a_window_too_small_for_any_reduce_is_a_listed_failure(tmp_path, double):
    s = _settings(tmp_path, double)
    seen, refused = [], []
    double.script["reduce"] = _windowed(200, seen, refused)  # under the prompt's own frame
    answer, trace, _ = _ask(s, _reports(8))
    failed = [f for f in trace.failures if f.item == "reduce"]
    assert failed and failed[0].reason == "context_length"
    assert "REDUCE_CONTEXT_TOKENS" in failed[0].error, failed[0].error
    assert answer.answer and answer.sources  # the best map points are shown, said so
    assert any("best map points are shown" in n for n in trace.notes)


def test_a_report_cut_to_the_map_budget_is_noted():
    huge = ReportRow(id=7, title="Hub", full_content="claim text " * 3000)
    trace = Trace()
    batches([huge], 1000, 0, "cl100k_base", trace)
    assert any(n.startswith("report 7 cut from") and "MAP_CONTEXT_TOKENS" in n
               for n in trace.notes), trace.notes


def test_a_silently_truncated_prompt_is_noted(tmp_path, double):
    s = _settings(tmp_path, double)
    prompt = [{"role": "user", "content": "The harbour plan and the festival. " * 400}]
    double.script["text"] = lambda body: Reply("Fine.", usage={
        "prompt_tokens": 1500, "completion_tokens": 2, "total_tokens": 1502})
    usage = Usage()
    run_with_llm(s, lambda llm: llm.complete(prompt, stage=TEXT), usage)
    assert usage.faults["prompt_truncated"] == 1
    assert len(usage.truncated) == 1 and "1,500 prompt tokens of the ~" in usage.truncated[0]
    assert "LLM_CTX" in usage.truncated[0]
    # the double's own usage (about ours, a chat template's few tokens more) is no truncation
    double.script["text"] = lambda body: "Fine."
    run_with_llm(s.model_copy(update={"llm_cache": False}),
                 lambda llm: llm.complete(prompt, stage=TEXT), usage)
    assert usage.faults["prompt_truncated"] == 1


@pytest.mark.parametrize(("local", "names"), [(False, "MAP_CONTEXT_TOKENS"),
                                               (True, "raise LLM_CTX")])
def test_an_overflow_names_the_setting_that_fixes_it(tmp_path, double, local, names):
    port = int(double.base_url.rsplit(":", 1)[1].split("/")[0])
    s = (make_settings(tmp_path, {}, llm_port=port, openai_model="double", llm_ctx=256)
         if local else _settings(tmp_path, double))
    double.script["map"] = lambda body: (_ for _ in ()).throw(Fail(400, {"error": {
        "code": 400, "message": LLAMA.format(n=900, ctx=256),
        "type": "exceed_context_size_error"}}))
    with pytest.raises(LLMError) as e:
        run_with_llm(s, lambda llm: llm.complete([{"role": "user", "content": "Hi"}],
                                                 stage="map"))
    assert e.value.reason == "context_length" and names in str(e.value), str(e.value)
    assert "(256 tokens)" in str(e.value)


def test_a_window_that_cannot_hold_the_map_prompt_is_one_line_and_no_call(tmp_path, double):
    port = int(double.base_url.rsplit(":", 1)[1].split("/")[0])
    s = make_settings(tmp_path, {}, llm_port=port, openai_model="double", llm_ctx=256)
    with pytest.raises(ConfigError) as e:
        _ask(s, _reports(4))
    assert "raise LLM_CTX (now 256" in str(e.value) and "(256 tokens" in str(e.value)
    assert double.count() == 0  # refused before any call: nothing paid, nothing retried
