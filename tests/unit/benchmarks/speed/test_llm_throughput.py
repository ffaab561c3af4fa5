"""The throughput benchmark's arithmetic: llama.cpp's timings read, every figure a ratio to the
limit, the output compared between variants, the background load started and stopped."""

from __future__ import annotations

import os

import pytest

from benchmarks.speed import llm_throughput as bench
from neo4j_retag.config import Settings

LIMIT = {"prefill_tps": 50.0, "decode_tps": 20.0}


def call(unit, seconds, prompt=500, completion=100, **timings):
    return {"unit": unit, "seconds": seconds, "prompt_tokens": prompt,
            "completion_tokens": completion, "entities": timings.pop("entities", ["a"]),
            **timings}


def test_a_variant_names_settings_by_their_environment_names():
    name, extra = bench.parse_variant("spec:LLM_SPECULATIVE=ngram-mod, LLM_DRAFT_MAX=4")
    assert name == "spec" and extra == {"llm_speculative": "ngram-mod", "llm_draft_max": "4"}
    s = Settings(openai_base_url=None, **extra)
    assert (s.services.llm_speculative, s.services.llm_draft_max) == ("ngram-mod", 4)
    assert bench.parse_variant("plain") == ("plain", {})


def test_llama_cpp_timings_are_read_and_other_servers_give_none():
    body = {"timings": {"prompt_n": 212, "prompt_per_second": 74.9, "predicted_n": 151,
                        "predicted_per_second": 24.8, "cache_n": 340, "draft_n": 40,
                        "draft_n_accepted": 30}}
    assert bench.timings_row(body) == {
        "prompt_n": 212, "cache_n": 340, "prefill_tps": 74.9, "decode_n": 151,
        "decode_tps": 24.8, "draft_n": 40, "draft_accepted": 30}
    assert bench.timings_row({"choices": []}) == {}


def test_the_limit_evaluates_every_prompt_token_and_decodes_one_by_one():
    assert bench.limit_seconds(500, 100, LIMIT) == pytest.approx(10 + 5)
    assert bench.limit_seconds(500, 100, {"prefill_tps": None, "decode_tps": 20}) is None


def test_a_corpus_summary_gives_ratios_to_the_limit():
    calls = [call("u1", 10.0, prefill_tps=40.0, decode_tps=25.0, draft_n=10, draft_accepted=5),
             call("u2", 20.0, prefill_tps=60.0, decode_tps=15.0, draft_n=10, draft_accepted=3),
             {**call("u2", 3.0), "error": "LLMError: x"}]
    got = bench.summarise(calls, LIMIT)
    assert (got["calls"], got["failed"], got["text_units"]) == (3, 1, 2)
    assert got["seconds_per_text_unit"] == 15.0  # 30 s over 2 units; the failed call: none
    assert got["prefill_ratio"] == 1.0 and got["decode_ratio"] == 1.0
    assert got["efficiency"] == 1.0  # 2 x 15 s at the limit, 30 s taken
    assert got["draft_acceptance"] == 0.4


def test_the_output_is_compared_unit_by_unit_with_the_first_variant():
    base = [call("u1", 1, entities=["a", "b"]), call("u2", 1, entities=[])]
    same = [call("u1", 1, entities=["b", "a"]), call("u2", 1, entities=[])]
    other = [call("u1", 1, entities=["a", "c"]), call("u2", 1, entities=["x"])]
    assert bench.agreement(same, base) == 1.0
    assert bench.agreement(other, base) == pytest.approx((1 / 3 + 0) / 2, abs=1e-3)


def test_decode_under_load_is_set_against_the_same_variant_idle():
    idle = {"threads": 1, "load": 0, "limit": LIMIT,
            "variants": {"v": {"c": [call("u1", 10.0, decode_tps=20.0)]}}}
    busy = {"threads": 1, "load": 2, "limit": {"prefill_tps": 10.0, "decode_tps": 4.0},
            "variants": {"v": {"c": [call("u1", 40.0, decode_tps=5.0)]}}}
    rows = bench.summary([idle, busy])
    loaded = next(r for r in rows if r["load"] == 2)
    assert loaded["decode_vs_idle"] == 0.25 and loaded["seconds_vs_idle"] == 4.0
    assert loaded["decode_ratio"] == 0.25  # against the idle limit, not the loaded one
    assert "decode_vs_idle" not in next(r for r in rows if r["load"] == 0)


def test_the_background_load_runs_inside_and_is_gone_after(monkeypatch):
    monkeypatch.setattr(bench.time, "sleep", lambda s: None)
    seen = []
    real = bench.subprocess.Popen

    def popen(*a, **k):
        p = real(*a, **k)
        seen.append(p)
        return p
    monkeypatch.setattr(bench.subprocess, "Popen", popen)
    with bench.background(2):
        assert len(seen) == 2 and all(p.poll() is None for p in seen)
    assert all(p.poll() is not None for p in seen)
    for p in seen:
        with pytest.raises(ProcessLookupError):
            os.kill(p.pid, 0)
