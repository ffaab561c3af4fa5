"""Issue 60: a small window. Behind 2,048 tokens the map kept LLM_MAX_TOKENS 1,024 for its
reply, so its reports went in cut and the reduce used "the best 1 of N" points: now the
completion's share is lowered first (to a quarter of the window at least, never over half),
the prompt keeps at least half. The first question paid ~30 refused calls to learn a window
the endpoint states: now llama.cpp's ``GET /props`` is read once per client, else the first
refusal's message names it (OpenAI's and llama.cpp's words) and the other batches are packed
by it. Against the scripted double refusing prompts over its window, as llama.cpp does."""

import threading
import time

import pytest

from neo4j_retag.llm import LLM, Usage, run_with_llm
from neo4j_retag.llm.endpoint import WINDOW_KEY, Capabilities
from neo4j_retag.model import ReportRow, Trace
from neo4j_retag.query.answer.map_batches import FITS_KEY
from neo4j_retag.query.answer.map_reduce import map_reduce
from neo4j_retag.tokens import count
from tests.conftest import make_settings
from tests.llm_double import Fail, default_map, default_reduce

WINDOW = 2048
OPENAI = ("This model's maximum context length is {ctx} tokens. However, your messages "
          "resulted in {n} tokens. Please reduce the length of the messages.")
LLAMA = "the request exceeds the available context size ({ctx} tokens), try increasing it"


def _prompt(body):
    return count("\n".join(m["content"] for m in body["messages"]))


def _window(answer, refused, message=LLAMA):
    """A stage refusing prompts over WINDOW tokens with ``message``, else ``answer``."""
    def script(body):
        if (n := _prompt(body)) > WINDOW:
            refused.append(n)
            raise Fail(400, {"error": {"code": 400, "message": message.format(ctx=WINDOW, n=n),
                                       "type": "exceed_context_size_error"}})
        return answer(body)
    return script


def _reports(n, words=320):
    return [ReportRow(id=i, title=f"Report {i}", full_content=f"Finding {i}: " + " ".join(
        f"the harbour plan {i} and lantern festival {j}." for j in range(words // 8)))
        for i in range(n)]


def _settings(tmp_path, double, **extra):
    return make_settings(tmp_path, {}, **{
        "openai_base_url": double.base_url, "llm_max_tokens": 1024,
        "map_context_tokens": 8000, "reduce_context_tokens": 8000, "llm_cache": False, **extra})


def _ask(settings, reports):
    trace = Trace()
    return run_with_llm(settings, lambda llm: map_reduce(
        llm, settings, "What are the themes?", reports, trace)), trace


def test_the_completion_gives_way_before_the_reports_are_cut(tmp_path, double):
    double.props = {"default_generation_settings": {"n_ctx": WINDOW}}
    refused: list[int] = []
    double.script["map"] = _window(default_map, refused)
    double.script["reduce"] = _window(default_reduce, refused)
    double.script["reduce_partial"] = _window(default_reduce, refused)
    answer, trace = _ask(_settings(tmp_path, double), _reports(12))
    assert not refused and not trace.failures and answer.sources
    maps = [b for k, b in double.calls if k == "map"]
    caps = {b["max_tokens"] for b in maps}
    # a quarter to a half of the window's 1,843 usable tokens, not LLM_MAX_TOKENS 1,024
    assert all(460 <= c <= 921 for c in caps), caps
    assert all(_prompt(b) + b["max_tokens"] <= WINDOW for b in maps)
    # each ~400-token report goes in whole (a 1,024 reserve left room to cut them to ~245)
    assert not any("cut from" in n for n in trace.notes), trace.notes
    assert trace.points_in_reduce == trace.points_kept > 3
    assert not any("the best 1 of" in n for n in trace.notes), trace.notes
    reduces = [b for k, b in double.calls if k == "reduce"]
    assert reduces and all(_prompt(b) + b["max_tokens"] <= WINDOW for b in reduces)


def test_a_large_window_keeps_llm_max_tokens(tmp_path, double):
    double.props = {"default_generation_settings": {"n_ctx": 32768}}
    _ask(_settings(tmp_path, double), _reports(12))
    assert {b["max_tokens"] for k, b in double.calls if k == "map"} == {1024}


def test_the_window_is_read_from_props_once_per_client(tmp_path, double):
    double.props = {"n_ctx": WINDOW}  # a newer llama.cpp says it at the top level
    refused: list[int] = []
    double.script["map"] = _window(default_map, refused)
    settings = _settings(tmp_path, double)

    async def two(llm: LLM):
        for _ in range(2):
            await map_reduce(llm, settings, "Which themes?", _reports(30), Trace())
    run_with_llm(settings, two, Usage())
    assert not refused  # no call refused to learn it
    assert sum(p.endswith("/props") for p in double.gets) == 1


@pytest.mark.parametrize("message", [OPENAI, LLAMA])
def test_the_first_refusal_names_the_window_and_the_rest_fit(tmp_path, double, message):
    refused: list[int] = []
    double.script["map"] = _window(default_map, refused, message)
    settings = _settings(tmp_path, double)
    answer, trace = _ask(settings, _reports(30))
    assert len(refused) == 1, refused  # the first batch alone; the others packed by it
    assert not trace.failures and answer.sources
    assert {r for b in (b for k, b in double.calls if k == "map") if _prompt(b) <= WINDOW
            for r in range(30) if f"Report {r}," in b["messages"][-1]["content"]} == set(
        range(30))  # every report mapped
    assert Capabilities(settings).get(WINDOW_KEY) == WINDOW  # remembered


def test_batches_that_fit_go_at_once_after_the_first_question(tmp_path, double):
    """Against an endpoint that never says its window (no /props, no refusal), a client's
    first question maps its first batch alone; once one has fit (remembered), a question's
    batches all go at once, as they did before."""
    lock, state = threading.Lock(), {"now": 0, "most": []}

    def slow_map(body):
        with lock:
            state["now"] += 1
        time.sleep(0.3)
        with lock:
            state["most"].append(state["now"])
            state["now"] -= 1
        return default_map(body)
    double.script["map"] = slow_map
    settings = _settings(tmp_path, double, map_context_tokens=1500)

    async def two(llm: LLM):
        for _ in range(2):  # one client, as `serve` keeps it
            await map_reduce(llm, settings, "Which themes?", _reports(8), Trace())
    run_with_llm(settings, two, Usage())
    n = len(state["most"]) // 2
    first, second = state["most"][:n], state["most"][n:]
    assert first[0] == 1 and max(second) > 1, state["most"]
    assert Capabilities(settings).get(FITS_KEY) == 1500
    assert Capabilities(settings).get(WINDOW_KEY) is None  # nothing refused, nothing learnt
