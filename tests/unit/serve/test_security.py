"""serve's safety checks without a server: the bind rule, the bearer key, the ingest root
(no `..`, no symlink escape, a folder holding a link that leads out), the question gate."""

import asyncio

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import ConfigError, InputError
from neo4j_retag.serve.gate import BusyError, Gate
from neo4j_retag.serve.security import authorised, check_bind, inside_root


def test_bind_needs_a_key_beyond_loopback():
    for host in ("127.0.0.1", "localhost", "::1"):
        check_bind(host, Settings(serve_api_key=None).serve)
    for key in (None, ""):
        with pytest.raises(ConfigError, match="without SERVE_API_KEY"):
            check_bind("0.0.0.0", Settings(serve_api_key=key).serve)
    check_bind("0.0.0.0", Settings(serve_api_key="k" * 32).serve)


def test_short_keys_only_on_loopback(caplog):
    for host in ("0.0.0.0", "192.168.1.20", "::"):
        for key in ("x", "correct-horse-battery-staple-31c"[:31]):
            with pytest.raises(ConfigError, match=r"SERVE_API_KEY of \d+ characters: at least 32"):
                check_bind(host, Settings(serve_api_key=key).serve)
    with caplog.at_level("WARNING"):
        check_bind("127.0.0.1", Settings(serve_api_key="pw").serve)  # served, with a note
    assert "SERVE_API_KEY has 2 characters" in caplog.text
    # a key no client can send in a header is refused anywhere, however long
    for key in ("ключ" * 10, "a key with spaces in it, long enough!", "tab\there" * 5):
        with pytest.raises(ConfigError, match="printable ASCII"):
            check_bind("127.0.0.1", Settings(serve_api_key=key).serve)


def test_the_cli_refuses_a_short_key_off_loopback_in_one_line(monkeypatch):
    from click.testing import CliRunner

    from neo4j_retag.cli import main
    monkeypatch.setenv("SERVE_API_KEY", "hunter2-but-longer")  # 18 characters
    out = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "8999"])
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and "SERVE_API_KEY of 18 characters: at least 32" in lines[0], lines
    assert "Traceback" not in out.output


def test_bearer_key():
    assert authorised("Bearer k3y", "k3y") and authorised("bearer k3y ", "k3y")
    for header in (None, "", "Bearer", "Bearer k3", "Basic k3y", "k3y"):
        assert not authorised(header, "k3y")


def test_ingest_root(tmp_path):
    root, out = tmp_path / "root", tmp_path / "out"
    (root / "docs").mkdir(parents=True)
    out.mkdir()
    (root / "docs" / "a.txt").write_text("a")
    (out / "b.txt").write_text("b")
    assert inside_root("docs/a.txt", root) == (root / "docs" / "a.txt").resolve()
    assert inside_root(str(root / "docs"), root) == (root / "docs").resolve()
    (root / "link").symlink_to(out)
    (root / "docs" / "b.txt").symlink_to(out / "b.txt")
    # outside and missing read alike: a client learns nothing of files beyond the root
    same = "is not a file or folder under the ingest root"
    for bad, why in (("../out/b.txt", r"'\.\.'"), ("docs/../../out", r"'\.\.'"),
                     (str(out / "b.txt"), same), ("link", same), ("/etc/shadow", same),
                     ("/etc/no-such-file", same), ("nope.txt", same),
                     ("docs", "holds a link that leads outside")):
        with pytest.raises(InputError, match=why):
            inside_root(bad, root)
    with pytest.raises(InputError, match="SERVE_INGEST_ROOT"):
        inside_root("docs/a.txt", None)


async def test_gate_caps_and_refuses_past_the_queue():
    gate = Gate(limit=2, queue_limit=1)
    release = asyncio.Event()

    async def question():
        async with gate.slot():
            await release.wait()

    tasks = []
    for _ in range(3):
        gate.admit()
        tasks.append(asyncio.create_task(question()))
    await asyncio.sleep(0.01)
    assert (gate.active, gate.waiting) == (2, 1)
    with pytest.raises(BusyError) as busy:
        gate.admit()
    assert busy.value.retry_after >= 1 and gate.refused == 1
    release.set()
    await asyncio.gather(*tasks)
    assert gate.as_dict() == {"limit": 2, "queue_limit": 1, "active": 0, "waiting": 0,
                                   "max_active": 2, "answered": 3, "refused": 1}


def test_ingest_root_is_checked_before_any_walk(tmp_path, monkeypatch):
    walked: list = []
    monkeypatch.setattr("pathlib.Path.rglob", lambda self, pattern: walked.append(self) or [])
    with pytest.raises(InputError, match="not a file or folder under the ingest root"):
        inside_root("/usr", tmp_path)  # a big folder outside: refused without walking it
    assert walked == []
