"""Issue 60: an endpoint that is down or redirects. A persistent 503 during dynamic selection
cost 32 requests and 74 s and ended in "8 of 8 rating calls failed" naming nothing; now the
first call's retries tell the endpoint is down, the other calls fail at once, and the line
names the status and its reason (a Retry-After beyond a call's wait is not waited for). A
redirect to another host cost 4 requests and never named its Location: now one request and a
ConfigError naming the Location and OPENAI_BASE_URL. Against the scripted double and
fakellm (``--script``)."""

import json
import time
import urllib.request

import pytest

from benchmarks.common import fakellm
from neo4j_retag.errors import ConfigError, LLMError
from neo4j_retag.llm import LLM, Usage, run_with_llm
from neo4j_retag.llm.embeddings import Embedder
from neo4j_retag.model import Query
from neo4j_retag.query.common import AnswerFailedError
from neo4j_retag.query.dynamic import ask_global_dynamic
from tests.conftest import make_settings
from tests.llm_double import Fail
from tests.unit.query.test_dynamic import TreeGraph

UNAVAILABLE = {"error": {"message": "The model is overloaded, try again later",
                         "type": "server_error"}}
MSG = [{"role": "user", "content": "Say OK."}]


def _settings(tmp_path, url, **extra):
    return make_settings(tmp_path, {}, **{"openai_base_url": url, "llm_max_retries": 3,
                                          "llm_cache": False, **extra})


def _dynamic(settings):
    return run_with_llm(settings, lambda llm: ask_global_dynamic(
        TreeGraph(), llm, settings, Query(question="ghosts?")))


def test_a_persistent_503_fails_the_rating_calls_fast_naming_the_status(tmp_path, double):
    def down(b):
        raise Fail(503, UNAVAILABLE)
    double.script["rate"] = down
    t0 = time.monotonic()
    with pytest.raises(AnswerFailedError) as e:
        _dynamic(_settings(tmp_path, double.base_url))
    # one call's 4 attempts found it down; the other 5 rating calls sent nothing (24 before)
    assert double.count("rate") == 4 and time.monotonic() - t0 < 30
    msg = str(e.value)
    assert msg.startswith("6 of 6 rating calls failed") and e.value.reason == "rate_failed"
    assert "HTTP 503 Service Unavailable: The model is overloaded" in msg


def test_a_retry_after_beyond_a_calls_wait_is_not_waited_for(tmp_path, double):
    def down(b):
        raise Fail(503, UNAVAILABLE, {"Retry-After": "600"})
    double.script["rate"] = down
    t0 = time.monotonic()
    with pytest.raises(AnswerFailedError, match=r"retried after 600 s\); not asked again "
                                                r"for 600 s"):
        _dynamic(_settings(tmp_path, double.base_url))
    assert double.count("rate") == 1 and time.monotonic() - t0 < 10


def test_a_short_retry_after_is_waited_and_the_call_goes_through(tmp_path, double):
    seen = []

    def flaky(b):
        seen.append(time.monotonic())
        if len(seen) < 3:
            raise Fail(503, UNAVAILABLE, {"Retry-After": "1"})
        return "OK."
    double.script["answer"] = flaky
    out = run_with_llm(_settings(tmp_path, double.base_url),
                       lambda llm: llm.complete(MSG, stage="answer"))
    assert out == "OK." and len(seen) == 3
    assert seen[1] - seen[0] >= 0.9 and seen[2] - seen[1] >= 0.9  # the server's wait


def test_a_down_endpoint_is_asked_again_after_its_hold(tmp_path, double, monkeypatch):
    from neo4j_retag.llm import health
    monkeypatch.setattr(health, "DOWN_SECONDS", 0.5)
    state = {"down": True}

    def answer(b):
        if state["down"]:
            raise Fail(502, {"error": {"message": "bad gateway"}})
        return "OK."
    double.script["answer"] = answer
    settings = _settings(tmp_path, double.base_url, llm_max_retries=0)

    async def go(llm: LLM):
        with pytest.raises(LLMError) as first:
            await llm.complete(MSG, stage="answer")
        with pytest.raises(LLMError) as fast:  # known down: no request
            await llm.complete(MSG, stage="answer")
        sent = double.count("answer")
        state["down"] = False
        time.sleep(0.6)
        return first.value, fast.value, sent, await llm.complete(MSG, stage="answer")

    first, fast, sent, later = run_with_llm(settings, go, Usage())
    assert "HTTP 502 Bad Gateway: bad gateway" in str(first) and sent == 1
    assert fast.reason == "endpoint_down" and "is unavailable" in str(fast)
    assert later == "OK." and double.count("answer") == 2  # `serve` sees it come back


def test_a_persistent_503_from_fakellm(tmp_path, monkeypatch):
    monkeypatch.setenv("LLM_ANSWER_CHECK", "false")  # fakellm() sets it: restored after
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"json_generic": [
        {"status": 503, "body": UNAVAILABLE, "headers": {"Retry-After": "0"}}]}))
    with fakellm("--script", str(script)) as url:
        t0 = time.monotonic()
        with pytest.raises(AnswerFailedError, match="HTTP 503 Service Unavailable"):
            _dynamic(_settings(tmp_path, url, llm_json_mode="json_schema"))
        assert time.monotonic() - t0 < 10  # Retry-After 0: no back-off
        with urllib.request.urlopen(url.removesuffix("/v1") + "/stats", timeout=5) as r:
            assert json.load(r)["scripted"] == {"json_generic": 4}  # not 24


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_one_request_and_names_its_location(tmp_path, double, status):
    where = "https://llm.elsewhere.example/v1/chat/completions"

    def moved(b):
        raise Fail(status, {}, {"Location": where})
    double.script["answer"] = moved
    with pytest.raises(ConfigError) as e:
        run_with_llm(_settings(tmp_path, double.base_url),
                     lambda llm: llm.complete(MSG, stage="answer"))
    assert double.count("answer") == 1
    msg = str(e.value)
    assert f"HTTP {status} redirecting to {where}" in msg and "Set OPENAI_BASE_URL" in msg
    assert "\n" not in msg


def test_an_embeddings_redirect_names_its_setting(tmp_path, double):
    double.script["embed"] = lambda b: (_ for _ in ()).throw(
        Fail(308, {}, {"Location": "http://other:8080/v1/embeddings"}))
    settings = _settings(tmp_path, double.base_url, embedding_base_url=double.base_url)
    with pytest.raises(ConfigError, match=r"redirecting to http://other:8080/v1/embeddings.*"
                                          r"Set EMBEDDING_BASE_URL"):
        run_with_llm(settings, lambda llm: Embedder.of(llm).embed(["a text"]))
    assert double.count("embed") == 1
