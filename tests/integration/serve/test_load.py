"""`serve` under load, against fakellm with a delay: 20 concurrent /ask all answered with at
most LLM_CONCURRENCY LLM calls at once (and twice as many questions); past the queue limit a
429 with Retry-After; a client that disconnects mid-stream stops its question's LLM calls."""

from __future__ import annotations

import asyncio
import time

import httpx2 as httpx
import pytest

from .conftest import BASE_PORT, Running, sse

pytestmark = pytest.mark.integration


def _fake(settings, url: str, **extra):
    return settings.model_copy(update={"openai_base_url": url, "openai_model": "fake",
                                       "llm_cache": False, **extra})


def _calls(fakellm_url: str) -> int:
    stats = httpx.get(fakellm_url.removesuffix("/v1") + "/stats").json()
    return sum(v["calls"] for v in stats.values() if isinstance(v, dict) and "calls" in v)


async def test_twenty_concurrent_questions_respect_the_cap(indexed, fakellm_url):
    with Running(_fake(indexed, fakellm_url, llm_concurrency=2), BASE_PORT + 7) as srv:
        async with httpx.AsyncClient(base_url=srv.url, timeout=300) as c:
            t0 = time.perf_counter()
            rs = await asyncio.gather(*(c.post("/ask", json={
                "question": f"What are the main themes, take {i}?", "method": "global",
                "level": 0}) for i in range(20)))
            seconds = time.perf_counter() - t0
            gate = (await c.get("/stats")).json()["serve"]
    assert [r.status_code for r in rs] == [200] * 20, [r.text for r in rs if r.status_code != 200]
    assert all(r.json()["trace"]["llm"]["calls"] >= 2 for r in rs)
    assert gate["llm_calls_limit"] == 2 and gate["llm_calls_max"] == 2, gate
    assert gate["max_active"] == 4 and gate["answered"] == 20 and gate["active"] == 0
    # two at a time, each >= 2 calls of 300 ms: at least 10 rounds of 0.6 s
    assert seconds >= 10 * 0.6 * 0.9


async def test_queue_limit_gives_429_with_retry_after(indexed, fakellm_url):
    with Running(_fake(indexed, fakellm_url, llm_concurrency=1), BASE_PORT + 8,
                 serve_queue_limit=2) as srv:
        async with httpx.AsyncClient(base_url=srv.url, timeout=300) as c:
            rs = await asyncio.gather(*(c.post("/ask", json={
                "question": f"Themes {i}?", "method": "global", "level": 0})
                for i in range(8)))
    codes = sorted(r.status_code for r in rs)
    # two questions at once (one LLM call), two waiting: the other four turned away
    assert codes.count(200) == 4 and codes.count(429) == 4, codes
    busy = next(r for r in rs if r.status_code == 429)
    assert int(busy.headers["retry-after"]) >= 1 and busy.json()["error"].startswith("busy")


def test_disconnect_mid_stream_cancels_llm_calls(indexed, fakellm_url):
    # small map batches: one report each, so the question is many 300 ms calls in a row
    settings = _fake(indexed, fakellm_url, llm_concurrency=1, map_context_tokens=120)
    with Running(settings, BASE_PORT + 8) as srv:
        with httpx.Client(base_url=srv.url, timeout=60) as c, c.stream(
                "POST", "/ask/stream", json={"question": "What are the main themes?",
                                             "method": "global", "level": 0}) as r:
            for kind, _ in sse(r.iter_lines()):
                if kind == "map":
                    break  # leave after the first map batch
        time.sleep(1.0)
        gate = srv.service.gate.as_dict()
        before = _calls(fakellm_url)
        time.sleep(1.5)
        after = _calls(fakellm_url)
    assert gate["active"] == 0, gate
    assert after == before, "LLM calls went on after the client left"
