"""A broken model file fails `llm start` fast and clearly (issue 46 item 6): the GGUF header
(magic, version, every tensor within the file) is checked before any server starts, a fetched
model's pinned SHA-256 on first use and after a change of size or mtime (a stamp kept), and a
server that dies at start-up is reaped at once and reported in one line with its exit status
and last log lines. No real llama server here (``tests/integration/services`` has that)."""

import hashlib
import os
import struct
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from neo4j_retag.cli.main import main
from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError, IntegrityError
from neo4j_retag.services import llm_fetch, llm_local, process
from neo4j_retag.services.gguf import check_file
from tests.unit.services.test_llm_local import smollm2_file


def _copy(src: Path, dest: Path, n: int | None = None) -> Path:
    with src.open("rb") as f:
        dest.write_bytes(f.read(n) if n else f.read())
    return dest


def test_a_whole_gguf_passes_and_every_tensor_is_within_it():
    meta = check_file(smollm2_file())
    assert meta["tensors"] > 100 and meta["data_bytes"] == smollm2_file().stat().st_size


@pytest.mark.parametrize(("damage", "why"), [
    ("head", "truncated"),            # the first 20 MB of a GGUF: tensor data past the end
    ("tiny", "ends inside its header"),
    ("zeros", "no GGUF magic"),       # a zero-filled file of the right size
    ("version", "GGUF version 9"),
])
def test_a_broken_gguf_is_one_line_naming_the_file(tmp_path, damage, why):
    src = smollm2_file()
    path = tmp_path / "model.gguf"
    if damage == "head":
        _copy(src, path, 20 << 20)
    elif damage == "tiny":
        _copy(src, path, 4096)
    elif damage == "zeros":
        with path.open("wb") as f:
            f.truncate(src.stat().st_size)
    else:
        _copy(src, path)
        with path.open("r+b") as f:
            f.seek(4)
            f.write(struct.pack("<I", 9))
    with pytest.raises(ConfigError) as e:
        check_file(path)
    assert why in str(e.value) and str(path) in str(e.value) and "\n" not in str(e.value)


def _pinned(monkeypatch, data: bytes):
    spec = llm_fetch.ModelSpec(file="m.gguf", packages=(), size=len(data),
                               sha256=hashlib.sha256(data).hexdigest(), licence="test")
    monkeypatch.setitem(llm_fetch.MODELS, "pinned-test", spec)
    return spec


def test_the_pinned_hash_is_checked_on_first_use_and_after_a_change(tmp_path, monkeypatch):
    good = b"GGUF" + os.urandom(4000)
    _pinned(monkeypatch, good)
    path = tmp_path / "m.gguf"
    path.write_bytes(bytes(len(good)))  # the right size, the wrong content
    with pytest.raises(IntegrityError, match="llm fetch pinned-test --force") as e:
        llm_fetch.verified(path, "pinned-test")
    assert str(path) in str(e.value) and not llm_fetch.stamp_file(path).exists()
    path.write_bytes(good)
    assert llm_fetch.verified(path, "pinned-test") == path
    assert llm_fetch.stamp_file(path).exists()
    hashed = []
    real = llm_fetch.verify
    monkeypatch.setattr(llm_fetch, "verify", lambda *a: hashed.append(1) or real(*a))
    llm_fetch.verified(path, "pinned-test")
    assert not hashed  # unchanged since its check: not hashed again
    with path.open("r+b") as f:  # same size, new content, a new mtime
        f.seek(10)
        f.write(b"\x00\x01\x02")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    with pytest.raises(IntegrityError):
        llm_fetch.verified(path, "pinned-test")
    assert hashed == [1]


def _settings(tmp_path, **extra):
    return Settings(openai_base_url=None, llm_server="python", neo4j_retag_home=tmp_path,
                    llm_port=8191, **extra)


def test_llm_start_refuses_a_broken_file_before_any_server_starts(tmp_path, monkeypatch):
    broken = _copy(smollm2_file(), tmp_path / "head.gguf", 20 << 20)
    monkeypatch.setattr(process, "spawn", lambda *a, **k: pytest.fail("a server was started"))
    monkeypatch.setattr(llm_local, "server_binary", lambda s: "/bin/true")
    t0 = time.monotonic()
    with pytest.raises(ConfigError) as e:
        llm_local.start(_settings(tmp_path, llm_model_path=broken))
    assert time.monotonic() - t0 < 5
    assert str(broken) in str(e.value) and "llm fetch" in str(e.value)


def test_a_fetched_model_of_the_wrong_content_fails_the_start(tmp_path, monkeypatch):
    data = smollm2_file().read_bytes()
    spec = _pinned(monkeypatch, data)
    monkeypatch.setattr(llm_fetch, "MODELS", {"qwen2.5-coder-1.5b": spec})
    monkeypatch.setattr(process, "spawn", lambda *a, **k: pytest.fail("a server was started"))
    monkeypatch.setattr(llm_local, "server_binary", lambda s: "/bin/true")
    monkeypatch.delenv("LLM_MODEL", raising=False)
    s = _settings(tmp_path)
    path = llm_fetch.models_dir(s) / spec.file
    path.parent.mkdir(parents=True)
    path.write_bytes(data[:-4096] + bytes(4096))  # a sound header, the wrong content
    with pytest.raises(IntegrityError, match="llm fetch qwen2.5-coder-1.5b --force"):
        llm_local.start(s)


def test_a_server_that_dies_is_reaped_and_told_in_one_line(tmp_path):
    pid_f, log_f = tmp_path / "x.pid", tmp_path / "x.log"
    pid = process.spawn([sys.executable, "-c", "import sys; print('loading model.gguf'); "
                         "print('gguf_init: invalid magic characters'); sys.exit(3)"],
                        pid_f, log_f)
    t0 = time.monotonic()
    with pytest.raises(process.StartFailed) as e:
        process.wait_until(lambda: False, 120, pid_f, log_f, "test server", "fetch it again")
    assert time.monotonic() - t0 < 5
    line = str(e.value)
    assert "(exit 3)" in line and "invalid magic characters" in line and "fetch it again" in line
    assert "\n" not in line and not pid_f.exists()
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(pid, os.WNOHANG)
    assert isinstance(e.value, RuntimeError | ConfigError)


def test_cli_llm_start_on_a_broken_file_is_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "zeros.gguf"
    with broken.open("wb") as f:
        f.truncate(50 << 20)
    env = {"LLM_MODEL_PATH": str(broken), "NEO4J_RETAG_HOME": str(tmp_path),
           "LLM_PORT": "8191", "OPENAI_BASE_URL": ""}
    t0 = time.monotonic()
    out = CliRunner().invoke(main, ["llm", "start"], env=env)
    assert time.monotonic() - t0 < 5
    assert out.exit_code == 2 and "Traceback" not in out.output, out.output
    assert str(broken) in out.output and "llm fetch" in out.output
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_a_garbage_header_fails_at_once(tmp_path):
    """Random bytes after a sound magic and version: a length read from garbage is refused,
    never allocated or looped over (the file is 64 MB; the check takes well under a second)."""
    path = tmp_path / "garbage.gguf"
    rng = bytes(range(256)) * 4096
    with path.open("wb") as f:
        f.write(b"GGUF" + struct.pack("<I", 3) + struct.pack("<Q", 291) + struct.pack("<Q", 30))
        for _ in range(64):
            f.write(hashlib.sha256(rng).digest() * 32768)  # 1 MB of noise
    t0 = time.monotonic()
    with pytest.raises(ConfigError, match="corrupt header|ends inside|not a usable"):
        check_file(path)
    assert time.monotonic() - t0 < 2
