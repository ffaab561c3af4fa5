"""The LLM client against the scripted double: retries of unusable replies, truncation,
Retry-After, timeouts, and parameters an endpoint refuses (issue 9 items 1, 2, 4, 6)."""

import asyncio
import json
import time

import pytest
from pydantic import BaseModel

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError, LLMError
from neo4j_retag.llm import LLM, ReplyFault
from neo4j_retag.stages import Stage
from tests.llm_double import Fail, Raw, Reply

TEXT = Stage.DOCTOR  # a stage the double answers with its "text" handler


class Obj(BaseModel):
    a: int


def settings_for(tmp_path, double, **extra):
    return Settings(**{"llm_cache_dir": tmp_path / "cache", "openai_model": "double",
                       "openai_base_url": double.base_url, "llm_json_mode": "json_schema",
                       "llm_max_retries": 2, "llm_ctx": 4096, **extra})


def answers(*items):
    """A handler giving ``items`` in turn (the last one repeated)."""
    seq = list(items)

    def handler(body):
        item = seq.pop(0) if len(seq) > 1 else seq[0]
        if isinstance(item, Exception):
            raise item
        return item
    return handler


def run(settings, coro_fn):
    async def go():
        async with LLM(settings) as llm:
            return await coro_fn(llm), llm
    return asyncio.run(go())


def ask(llm, **kw):
    return llm.structured([{"role": "user", "content": "x"}], Obj, stage=TEXT, **kw)


def test_prose_and_fences_around_json_are_repaired_and_counted(tmp_path, double):
    double.script["text"] = answers('Sure! Here is the JSON:\n\n```json\n{"a": 1}\n```')
    out, llm = run(settings_for(tmp_path, double), ask)
    assert out.a == 1 and llm.usage.faults == {"fence": 1, "prose": 1} and double.count() == 1


@pytest.mark.parametrize("bad,reason", [
    (Raw({"error": {"message": "overloaded"}}), "no_choices"),
    (Raw({"choices": []}), "no_choices"),
    (Reply(""), "empty"),
    ("I'm sorry, I can't help with that.", "unparseable"),
    (Reply('{"a": 1, "b": "cut', finish_reason="length"), "truncated"),
    ('{"a": "not a number"}', "invalid"),
])
def test_unusable_reply_is_retried_then_used(tmp_path, double, bad, reason):
    double.script["text"] = answers(bad, '{"a": 1}')
    out, llm = run(settings_for(tmp_path, double), ask)
    assert out.a == 1 and llm.usage.faults[reason] == 1 and double.count() == 2


def test_every_attempt_unusable_fails_with_the_reason_and_is_never_cached(tmp_path, double):
    double.script["text"] = answers("no JSON here")
    s = settings_for(tmp_path, double)
    with pytest.raises(ReplyFault) as err:
        run(s, ask)
    assert err.value.reason == "unparseable" and "after 3 attempts" in str(err.value)
    assert double.count() == 3
    double.script["text"] = answers('{"a": 2}')
    assert run(s, ask)[0].a == 2  # nothing invalid was cached


def test_nudge_names_the_error_and_cache_serves_the_first_request(tmp_path, double):
    double.script["text"] = answers("Sure, here you go.", "Sure, here you go.", '{"a": 3}')
    s = settings_for(tmp_path, double)
    run(s, ask)
    assert double.calls[1][1]["messages"] == double.calls[0][1]["messages"]  # first: as it was
    retry = double.calls[2][1]["messages"]
    assert retry[0]["role"] == "system" and "unparseable" in retry[0]["content"]
    assert "error}" not in retry[0]["content"]  # prompts/llm/reply_invalid filled strictly
    assert retry[1:] == double.calls[0][1]["messages"] == [{"role": "user", "content": "x"}]
    out, llm = run(s, ask)
    assert out.a == 3 and llm.usage.stage(TEXT).cached == 1 and double.count() == 3


def test_truncation_retries_with_more_room_then_fails(tmp_path, double):
    double.script["text"] = answers(Reply('{"a": 1', finish_reason="length"))
    with pytest.raises(ReplyFault) as err:
        run(settings_for(tmp_path, double), lambda llm: ask(llm, max_tokens=100))
    assert err.value.reason == "truncated"
    caps = [b["max_tokens"] for _, b in double.calls]
    assert caps[0] == 100 and caps[1] == 200 and caps[2] == 400


LOOPED = Reply("The corpus is about the plan. " + "It contains the report and its key points "
               "mentioned most prominently by the team. " * 12, finish_reason="length")


def test_a_looping_reply_is_retried_with_a_frequency_penalty_not_more_room(tmp_path, double):
    double.script["text"] = answers(LOOPED, LOOPED, "The corpus is about a harbour plan.")
    out, llm = run(settings_for(tmp_path, double),
                   lambda llm: llm.complete([{"role": "user", "content": "x"}], stage=TEXT,
                                            max_tokens=100))
    assert out == "The corpus is about a harbour plan." and llm.usage.faults == {"loop": 2}
    sent = [b for _, b in double.calls]
    assert [b["max_tokens"] for b in sent] == [100, 100, 100]
    assert [b.get("frequency_penalty") for b in sent] == [None, 0.5, 1.0]


def test_a_reply_that_always_loops_fails_as_loop(tmp_path, double):
    double.script["text"] = answers(LOOPED)
    with pytest.raises(ReplyFault) as err:
        run(settings_for(tmp_path, double),
            lambda llm: llm.complete([{"role": "user", "content": "x"}], stage=TEXT))
    assert err.value.reason == "loop" and "repeated itself" in str(err.value)


def test_frequency_penalty_refused_is_dropped_remembered_and_a_loop_gets_room(tmp_path,
                                                                            double):
    def handler(body):
        if "frequency_penalty" in body:
            raise refuse("frequency_penalty", "Unsupported parameter: 'frequency_penalty'")
        return LOOPED if body["max_tokens"] <= 100 else "Done."
    double.script["text"] = handler
    out, llm = run(settings_for(tmp_path, double, llm_max_retries=3),
                   lambda llm: llm.complete([{"role": "user", "content": "x"}], stage=TEXT,
                                            max_tokens=100))
    assert out == "Done." and "frequency_penalty refused" in llm.caps.describe()
    sent = [b for _, b in double.calls]
    assert "frequency_penalty" not in sent[-1] and sent[-1]["max_tokens"] == 200
    assert llm.usage.stage(TEXT).failed == 0  # the refusal was adapted to, not a failure


def test_finish_reason_length_is_truncation_even_when_json_parses(tmp_path, double):
    double.script["text"] = answers(Reply('{"a": 1}', finish_reason="length"), '{"a": 2}')
    out, llm = run(settings_for(tmp_path, double), ask)
    assert out.a == 2 and llm.usage.faults["truncated"] == 1


def test_429_honours_retry_after(tmp_path, double):
    double.script["text"] = answers(Fail(429, headers={"Retry-After": "2"}), '{"a": 1}')
    t0 = time.perf_counter()
    out, llm = run(settings_for(tmp_path, double), ask)
    assert out.a == 1 and llm.usage.faults["http429"] == 1
    assert time.perf_counter() - t0 >= 1.9  # exponential backoff would start at ~1 s


def test_timeout_on_every_attempt_is_an_llm_error_not_cannot_reach(tmp_path, double):
    def slow(body):
        time.sleep(1.0)
        return '{"a": 1}'
    double.script["text"] = slow
    s = settings_for(tmp_path, double, llm_timeout=0.2, llm_max_retries=1)
    with pytest.raises(LLMError) as err:
        run(s, ask)
    assert not isinstance(err.value, ConfigError)
    assert "timed out after 2 attempts" in str(err.value)


def test_connection_refused_stays_a_config_error(tmp_path):
    s = Settings(llm_cache_dir=tmp_path, openai_model="m", llm_max_retries=0,
                 openai_base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="cannot reach"):
        asyncio.run(LLM(s).complete([{"role": "user", "content": "x"}], stage=TEXT))


def refuse(param, message="unsupported"):
    return Fail(400, body={"error": {"message": message, "type": "invalid_request_error",
                                     "param": param, "code": "unsupported_parameter"}})


def test_max_tokens_refused_switches_to_max_completion_tokens_once(tmp_path, double):
    def handler(body):
        if "max_tokens" in body:
            raise refuse("max_tokens", "Unsupported parameter: 'max_tokens' is not supported "
                                       "with this model. Use 'max_completion_tokens' instead.")
        return '{"a": 1}'
    double.script["text"] = handler
    s = settings_for(tmp_path, double)
    out, llm = run(s, ask)
    assert out.a == 1 and llm.json_mode == "json_schema"  # JSON mode untouched
    assert double.calls[-1][1]["max_completion_tokens"] == s.llm.max_tokens
    remembered = json.loads((tmp_path / "cache" / "endpoint-capabilities.json").read_text())
    assert remembered[f"{double.base_url}|double"]["max_tokens_param"] == "max_completion_tokens"
    n = double.count()
    run(settings_for(tmp_path, double, llm_cache=False), ask)  # a new process: no refusal
    assert double.count() == n + 1 and "remembered" not in llm.caps.describe()


def test_temperature_refused_is_dropped(tmp_path, double):
    def handler(body):
        if "temperature" in body:
            raise refuse(None, "Unsupported value: 'temperature' does not support 0")
        return '{"a": 1}'
    double.script["text"] = handler
    out, llm = run(settings_for(tmp_path, double), ask)
    assert out.a == 1 and "temperature refused" in llm.caps.describe()


def test_only_a_refused_response_format_downgrades_the_json_mode(tmp_path, double):
    def handler(body):
        if (body.get("response_format") or {}).get("type") == "json_schema":
            raise refuse("response_format", "json_schema is not supported")
        return '{"a": 1}'
    double.script["text"] = handler
    out, llm = run(settings_for(tmp_path, double, llm_json_mode="auto"), ask)
    assert out.a == 1 and llm.json_mode == "json_object"
    double.script["text"] = answers(refuse(None, "the prompt is too long"))
    with pytest.raises(LLMError):
        run(settings_for(tmp_path / "b", double, llm_json_mode="auto"), ask)


def test_text_completion_repairs_are_counted(tmp_path, double):
    double.script["text"] = answers(Reply("<think>x</think>\nFine.", usage=None))
    out, llm = run(settings_for(tmp_path, double),
                   lambda llm: llm.complete([{"role": "user", "content": "x"}], stage=TEXT))
    assert out == "Fine." and llm.usage.faults == {"think": 1, "nousage": 1}


def test_the_stage_is_sent_as_a_header_outside_the_cache_key(tmp_path, double):
    # the double routes on the X-Retag-Stage header: stage answer reaches the handler
    # "answer"; the same request under stage reduce is the same cache entry, never sent
    double.script["answer"] = answers("the answer")
    double.script["reduce"] = answers(Fail(500))
    msgs = [{"role": "user", "content": "x"}]

    async def twice(llm):
        return [await llm.complete(msgs, stage=Stage.ANSWER),
                await llm.complete(msgs, stage=Stage.REDUCE)]
    out, llm = run(settings_for(tmp_path, double), twice)
    assert out == ["the answer", "the answer"] and double.count() == 1
    assert llm.usage.stage(Stage.ANSWER).calls == 1
    assert llm.usage.stage(Stage.REDUCE).cached == 1
    assert llm.usage.stage(Stage.REDUCE).calls == 0
