"""The local server's tuning reaches every server the same way: threads (auto from the machine),
polling, the prompt's KV cache, draftless speculative decoding (auto: for a model that writes),
and a lower CPU priority for the process."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.config import services as services_config
from neo4j_retag.services import llm_local, llm_tuning, process

from .test_llm_local import smollm2_file


def _settings(server: str, **extra) -> Settings:
    return Settings(openai_base_url=None, llm_model_path=smollm2_file(), llm_port=8099,
                    llm_server=server, **extra)


def _flag(cmd: list[str], name: str) -> str:
    return cmd[cmd.index(name) + 1]


def test_auto_threads_are_read_from_the_machine_at_start(monkeypatch):
    monkeypatch.setattr(services_config, "cores", lambda: 2)
    monkeypatch.setattr(services_config, "other_work", lambda: 3.0)  # busy: one thread
    cmd = llm_local.command(_settings("python", llm_threads="auto"))
    assert _flag(cmd, "--n_threads") == "1" == _flag(cmd, "--n_threads_batch")
    monkeypatch.setattr(services_config, "other_work", lambda: 0.1)
    assert _flag(llm_local.command(_settings("python", llm_threads="auto")), "--n_threads") == "2"
    assert _flag(llm_local.command(_settings("python", llm_threads=3)), "--n_threads") == "3"


def test_llama_server_gets_the_tuning_flags(tmp_path):
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\n")
    cmd = llm_local.command(_settings(str(binary), llm_poll=0, llm_cache_reuse=256,
                                      llm_class="capable", llm_threads=1))
    assert _flag(cmd, "--poll") == "0" and _flag(cmd, "--cache-reuse") == "256"
    assert "--cache-prompt" in cmd
    # a model that writes copies its text: n-gram drafts by default
    assert _flag(cmd, "--spec-type") == "ngram-simple"
    assert _flag(cmd, "--spec-ngram-size-n") == "4" and _flag(cmd, "--draft-max") == "8"
    small = llm_local.command(_settings(str(binary), llm_class="small", llm_threads=1,
                                        llm_cache_prompt=False))
    # one that selects does not, and an older build is not handed a flag it lacks
    assert "--spec-type" not in small and "--no-cache-prompt" in small
    forced = llm_local.command(_settings(str(binary), llm_class="small", llm_threads=1,
                                         llm_speculative="ngram-mod", llm_draft_max=12))
    assert _flag(forced, "--spec-type") == "ngram-mod" and _flag(forced, "--draft-max") == "12"


def test_the_python_server_gets_its_prompt_lookup_decoding():
    cmd = llm_local.command(_settings("python", llm_class="capable", llm_threads=1))
    assert _flag(cmd, "--draft_model") == "prompt-lookup-decoding"
    assert _flag(cmd, "--draft_model_num_pred_tokens") == "8"
    assert "--draft_model" not in llm_local.command(_settings("python", llm_threads=1,
                                                              llm_speculative="none"))


@pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="no xllamacpp")
def test_xllamacpp_parameters_carry_the_tuning():
    from neo4j_retag.services import xllama
    cmd = llm_local.command(_settings("xllamacpp", llm_class="capable", llm_threads=2,
                                      llm_poll=10, llm_cache_reuse=128))
    # the wheel's parameters as the server process builds them from this command line
    p = xllama.params(xllama.parser().parse_args(cmd[cmd.index("neo4j_retag.services.xllama")
                                                     + 1:]))
    assert p.cpuparams.n_threads == 2 and p.cpuparams.poll == 10 == p.cpuparams_batch.poll
    assert p.cache_prompt and p.n_cache_reuse == 128
    assert [t.name for t in p.speculative.types] == ["COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE"]
    assert (p.speculative.ngram_simple.size_n, p.speculative.ngram_simple.size_m) == (4, 8)


def test_a_server_process_runs_at_the_lower_priority_with_every_thread(tmp_path):
    script = ("import threading, time, os\n"
              "t = threading.Thread(target=time.sleep, args=(30,)); t.start()\n"
              "print(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), flush=True)\n"
              "time.sleep(30)\n")
    pid = process.spawn([sys.executable, "-c", script], tmp_path / "p.pid", tmp_path / "p.log",
                        nice=7)
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "p.log").read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.1)
        mine = __import__("os").getpriority(__import__("os").PRIO_PROCESS, 0)
        threads = list(Path(f"/proc/{pid}/task").iterdir())
        assert len(threads) >= 2
        for t in threads:  # niceness, field 19 of each thread's stat
            nice = int((t / "stat").read_text().rsplit(")", 1)[1].split()[16])
            assert nice == min(19, mine + 7)
    finally:
        process.stop(tmp_path / "p.pid", timeout=5)


def test_the_threads_a_running_server_was_started_with(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)",
                             "--threads", "3"])
    try:
        deadline = time.monotonic() + 10  # until the child has exec'd its own command line
        while llm_tuning.served_threads(proc.pid) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm_tuning.served_threads(proc.pid) == 3
    finally:
        proc.kill()
        proc.wait()
    assert llm_tuning.served_threads(None) is None
