"""Questions in question processes (SERVE_PROCESSES): a process killed mid-question fails
its question with one line and the next question is answered by a new one; SIGTERM lets the
question under way finish; a process that cannot reach Neo4j fails with that reason (503)
and is not started again at once; with SERVE_PROCESSES=0 the server's own process answers,
the same JSON."""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx2 as httpx
import pytest

from neo4j_retag.query.ask import AskRequest

from .conftest import BASE_PORT, Running

pytestmark = pytest.mark.integration
ASK = {"question": "What are the main themes?", "method": "global", "level": 0}


def _fake(settings, url: str, **extra):
    return settings.model_copy(update={"openai_base_url": url, "openai_model": "fake",
                                       "llm_cache": False, **extra})


def _signal_mid_question(srv: Running, child, sig: int) -> list[httpx.Response]:
    """POST /ask, ``sig`` to ``child``'s process once the question's first LLM calls are
    under way; the response, once it came."""
    got: list[httpx.Response] = []
    asking = threading.Thread(target=lambda: got.append(
        httpx.post(f"{srv.url}/ask", json=ASK, timeout=120)))
    asking.start()
    deadline = time.monotonic() + 30
    while not child.pending and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # its first LLM calls under way
    os.kill(child.process.pid, sig)
    asking.join(60)
    return got


def test_a_killed_question_process_fails_its_question_and_the_next_is_answered(
        indexed, fakellm_url):
    settings = _fake(indexed, fakellm_url, llm_concurrency=1, map_context_tokens=120)
    with Running(settings, BASE_PORT + 4) as srv:
        (child,) = srv.service.procs.children  # one LLM call: one process
        pid = child.process.pid
        got = _signal_mid_question(srv, child, signal.SIGKILL)
        again = httpx.post(f"{srv.url}/ask", json=ASK, timeout=120)
        new_pid = child.process.pid
    assert got[0].status_code == 500 and set(got[0].json()) == {"error"}, got[0].text
    assert "question process stopped" in got[0].json()["error"]
    assert again.status_code == 200, again.text
    assert new_pid != pid and again.json()["answer"]


def test_without_question_processes_the_server_answers_itself(indexed, server):
    with Running(indexed, BASE_PORT + 6, serve_processes=0) as srv:
        assert srv.service.procs is None
        own = httpx.post(f"{srv.url}/ask", json=ASK, timeout=120)
        stats = httpx.get(f"{srv.url}/stats", timeout=30).json()["serve"]
    split = httpx.post(f"{server.url}/ask", json=ASK, timeout=120)
    assert own.status_code == split.status_code == 200, (own.text, split.text)
    assert own.json()["answer"] == split.json()["answer"]  # the double answers alike
    assert stats["llm_calls_limit"] == indexed.llm.parallel and stats["llm_calls_max"] >= 1


def test_sigterm_lets_a_question_under_way_finish(indexed, fakellm_url):
    # what a service manager does to the whole process group: the question still answers
    settings = _fake(indexed, fakellm_url, llm_concurrency=1, map_context_tokens=120)
    with Running(settings, BASE_PORT + 4) as srv:
        (child,) = srv.service.procs.children
        got = _signal_mid_question(srv, child, signal.SIGTERM)
        child.process.join(30)  # it ends once its question is answered
        ended = child.process.exitcode
    assert got[0].status_code == 200, got[0].text
    assert ended == 0


async def test_a_process_that_cannot_start_fails_with_its_reason_and_waits_to_retry(settings):
    from neo4j_retag.errors import ConfigError
    from neo4j_retag.serve.procs import QuestionProcesses

    dead = settings.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:9"})  # nothing listens
    procs = QuestionProcesses(dead, processes=1, calls=1)
    try:
        with pytest.raises(ConfigError) as first:  # a 503 naming Neo4j, not a 500
            await procs.start()
        pid = procs.children[0].process.pid
        for _ in range(3):  # within RETRY_SECONDS: the same reason, no new process
            with pytest.raises(ConfigError):
                await procs.ask(AskRequest(question="q"), as_json=True)
        assert procs.children[0].process.pid == pid
    finally:
        await procs.stop()
    assert "Neo4j" in str(first.value) and "\n" not in str(first.value).strip()
