"""`neo4j-retag llm start` on a model file whose header is sound but which the real llama.cpp
server cannot load (issue 46 item 6): the server dies at load, is reaped at once (no zombie)
and the start fails in one line - exit status, the file, `llm fetch`, the log's last lines -
within seconds, not after the 120 s readiness wait with a traceback.

Starts the real server (xllamacpp, else llama-server / llama-cpp-python) on its own port
(RETAG_TEST_BROKEN_LLM_PORT, 8191) and home; it dies within a second on this file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neo4j_retag.services.gguf import check_file
from tests.unit.services.test_llm_local import smollm2_file

pytestmark = pytest.mark.llm


def _unknown_architecture(dest: Path) -> Path:
    """SmolLM2 with its architecture renamed ("llama" -> "llamx"): a whole GGUF by the
    header check, a model llama.cpp refuses to load."""
    data = bytearray(smollm2_file().read_bytes())
    key = b"general.architecture"
    at = data.index(key) + len(key) + 4 + 8  # value type u32, string length u64
    assert data[at:at + 5] == b"llama"
    data[at:at + 5] = b"llamx"
    dest.write_bytes(data)
    return dest


def test_a_server_dying_on_load_fails_the_start_in_seconds(tmp_path):
    model = _unknown_architecture(tmp_path / "unknown-arch.gguf")
    check_file(model)  # passes the header check: the server's own load is what fails
    env = {**os.environ, "LLM_MODEL_PATH": str(model), "NEO4J_RETAG_HOME": str(tmp_path),
           "LLM_PORT": os.environ.get("RETAG_TEST_BROKEN_LLM_PORT", "8191"),
           "OPENAI_BASE_URL": "", "LLM_THREADS": "1"}
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "neo4j_retag", "llm", "start"], env=env,
                         capture_output=True, text=True, timeout=60)
    took = time.monotonic() - t0
    pid_file = tmp_path / "llm" / "llm.pid"
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    line = out.stderr
    assert "exited during start-up (exit" in line and str(model) in line
    assert "llm fetch" in line and "log " in line
    assert took < 10, took  # Python's start-up and the server's own attempt included
    assert not pid_file.exists()
