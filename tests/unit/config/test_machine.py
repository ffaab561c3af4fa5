"""The local server's threads follow the machine: LLM_THREADS unset (auto) takes the cores other
work leaves free when the server starts, a number is that number."""

from __future__ import annotations

import pytest

from neo4j_retag.config import Settings, machine
from neo4j_retag.config import services as services_config


@pytest.mark.parametrize("cores, load, threads", [
    (2, 0.1, 2), (2, 0.4, 2),   # an idle machine: every core
    (2, 0.6, 1), (2, 1.0, 1),   # another process holds a core: one thread
    (2, 9.0, 1),                # far busier than its cores: still one
    (8, 3.2, 5), (8, 0.0, 8), (1, 0.0, 1),
    (4, None, 4),               # no load average on this system: every core
])
def test_auto_threads_are_the_cores_other_work_leaves_free(cores, load, threads):
    assert machine.auto_threads(cores, load) == threads


def test_too_busy_is_more_runnable_work_than_cores():
    assert machine.too_busy(2, 2.5) and not machine.too_busy(2, 1.9)
    assert not machine.too_busy(2, None)


def test_llm_threads_unset_is_auto_read_when_asked(monkeypatch):
    monkeypatch.delenv("LLM_THREADS", raising=False)
    monkeypatch.setattr(services_config, "cores", lambda: 2)
    monkeypatch.setattr(services_config, "other_work", lambda: 0.2)
    s = Settings()
    assert s.services.llm_threads == "auto" and s.services.threads == 2
    monkeypatch.setattr(services_config, "other_work", lambda: 5.0)  # the machine got busy
    assert s.services.threads == 1
    assert Settings(llm_threads=3).services.threads == 3  # a number is that number
    monkeypatch.setenv("LLM_THREADS", "auto")
    assert Settings().services.threads == 1


@pytest.mark.parametrize("value", ["0", "many"])
def test_llm_threads_must_be_auto_or_a_positive_number(monkeypatch, value):
    monkeypatch.setenv("LLM_THREADS", value)
    with pytest.raises(ValueError, match="LLM_THREADS"):
        Settings()


def test_other_work_is_the_load_average_unless_fewer_cores_are_busy_now(monkeypatch):
    monkeypatch.setattr(machine, "load", lambda: 3.0)
    monkeypatch.setattr(machine, "busy", lambda seconds=0.5: 0.2)  # a job that just ended
    assert machine.other_work() == 0.2
    monkeypatch.setattr(machine, "busy", lambda seconds=0.5: 5.0)
    assert machine.other_work() == 3.0
    monkeypatch.setattr(machine, "busy", lambda seconds=0.5: None)  # no /proc/stat
    assert machine.other_work() == 3.0


def test_busy_cores_are_read_from_proc_stat(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    samples = iter(["cpu  100 0 100 800 0 0 0 0 0 0\n", "cpu  250 0 150 900 0 0 0 0 0 0\n"])
    monkeypatch.setattr(machine, "STAT", stat)
    monkeypatch.setattr(machine, "cores", lambda: 2)
    monkeypatch.setattr(machine.time, "sleep", lambda s: stat.write_text(next(samples)))
    stat.write_text(next(samples))
    # 200 of 300 jiffies busy on 2 cores: 1.33 cores
    assert machine.busy(0.5) == pytest.approx(200 / 300 * 2)
    monkeypatch.setattr(machine, "STAT", tmp_path / "none")
    assert machine.busy(0.5) is None


def test_cores_are_those_this_process_may_use():
    assert 1 <= machine.cores() <= (__import__("os").cpu_count() or 1)
