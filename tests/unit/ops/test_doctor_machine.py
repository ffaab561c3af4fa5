"""doctor says when the machine is too busy for the local model, and what to set."""

from __future__ import annotations

from neo4j_retag.config import Settings
from neo4j_retag.ops import doctor, doctor_machine


def _running(monkeypatch, threads):
    monkeypatch.setattr(doctor_machine.llm_local, "status", lambda s: {"threads": threads})


def test_an_idle_machine_passes(monkeypatch):
    _running(monkeypatch, 2)
    c = doctor_machine.machine_load(Settings(openai_base_url=None), 2, 0.3)
    assert c.ok and not c.warn and "2 cores, load average 0.3" in c.detail
    assert "runs 2 threads, 2 free" in c.detail


def test_load_over_the_cores_warns_with_threads_and_nice_to_set(monkeypatch):
    _running(monkeypatch, 2)
    c = doctor_machine.machine_load(Settings(openai_base_url=None, llm_nice=0), 2, 5.2)
    assert c.ok and c.warn and "busier than its cores" in c.detail
    assert "LLM_THREADS=1" in c.fix and "LLM_NICE=10" in c.fix and "llm stop" in c.fix
    niced = doctor_machine.machine_load(Settings(openai_base_url=None, llm_nice=10), 2, 5.2)
    assert "LLM_NICE" not in niced.fix  # already set: not told again
    _running(monkeypatch, 1)  # already on the one free core: only the priority is left
    one = doctor_machine.machine_load(Settings(openai_base_url=None), 2, 5.2)
    assert one.warn and "LLM_THREADS" not in one.fix and "LLM_NICE=10" in one.fix
    assert "runs 1 thread," in one.detail
    both = doctor_machine.machine_load(Settings(openai_base_url=None, llm_nice=10), 2, 5.2)
    assert both.warn and both.fix == "let the other work end first"


def test_a_server_with_more_threads_than_free_cores_warns(monkeypatch):
    _running(monkeypatch, 2)
    c = doctor_machine.machine_load(Settings(openai_base_url=None), 2, 1.2)
    assert c.warn and "more threads than free cores" in c.detail and "LLM_THREADS=1" in c.fix
    _running(monkeypatch, 1)
    assert not doctor_machine.machine_load(Settings(openai_base_url=None), 2, 1.2).warn


def test_the_check_runs_for_the_local_model_only(monkeypatch):
    monkeypatch.setattr(doctor, "_neo4j", lambda s: [])
    monkeypatch.setattr(doctor, "_model", lambda s: doctor.Check("LLM model", True, "m"))
    monkeypatch.setattr(doctor, "_budgets", lambda s: [])
    monkeypatch.setattr(doctor, "_llm", lambda s: _none())
    monkeypatch.setattr(doctor, "_embeddings", lambda s: _one())
    _running(monkeypatch, None)
    local = [c.name for c in doctor.run_checks(Settings(openai_base_url=None))]
    remote = [c.name for c in doctor.run_checks(Settings(openai_base_url="http://x/v1"))]
    assert "machine load" in local and "machine load" not in remote


async def _none():
    return []


async def _one():
    return doctor.Check("embeddings", True, "e")


def test_auto_threads_of_a_stopped_server_are_never_too_many(monkeypatch):
    _running(monkeypatch, None)
    monkeypatch.setattr(doctor_machine.llm_local, "status", lambda s: {"threads": None})
    auto = Settings(openai_base_url=None, llm_threads="auto")
    monkeypatch.setattr(type(auto.services), "threads", property(lambda self: 2))
    c = doctor_machine.machine_load(auto, 2, 1.2)  # the cores busy now may differ: auto decides
    assert not c.warn and "would start with 2 threads" in c.detail
    fixed = doctor_machine.machine_load(Settings(openai_base_url=None, llm_threads=2), 2, 1.2)
    assert fixed.warn and "LLM_THREADS=1" in fixed.fix
