"""Issue 21 kind 10: `ingest --wait` queues behind a running ingest and then finishes (two
CLI subprocesses on the real Neo4j, the LLM double slowed down so that the first holds the
lock); without it the second stops at once, naming --wait / LOCK_TIMEOUT."""

import os
import subprocess
import sys
import time

import pytest

from tests.conftest import double_vars, neo4j_vars
from tests.integration.index.test_lock import _folder

pytestmark = pytest.mark.integration


def test_ingest_wait_queues_behind_a_running_ingest(settings, graph, double, tmp_path):
    fn = double.script["extract"]
    double.script["extract"] = lambda b: (time.sleep(0.5), fn(b))[1]
    env = {**os.environ, **double_vars(settings), **neo4j_vars(settings),
           "LLM_CACHE_DIR": str(tmp_path / "cache"), "CHUNK_SIZE": "120", "CHUNK_OVERLAP": "20",
           "LLM_CONCURRENCY": "1", "GLEAN": "0"}
    q = graph.driver.execute_query
    a, b, c = (_folder(tmp_path, n, i) for n, i in (("a", 0), ("b", 5), ("c", 2)))

    def cli(folder, *extra, **kw):
        return subprocess.Popen([sys.executable, "-m", "neo4j_retag.cli", "ingest", str(folder),
                                 "--no-topics", "--quiet", *extra], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)

    first = cli(a)
    deadline = time.monotonic() + 120
    while not q("MATCH (l:Meta {id: 'lock'}) RETURN count(l) AS n").records[0]["n"]:
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.1)
    waiting = cli(b, "--wait")
    refused = subprocess.run([sys.executable, "-m", "neo4j_retag.cli", "ingest", str(c),
                              "--no-topics", "--quiet"], env=env, capture_output=True,
                             text=True, timeout=300)
    assert first.poll() is None  # all of the above happened while the first held the lock
    assert refused.returncode == 1
    lines = [ln for ln in refused.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "another ingest is running" in lines[0]
    assert "--wait" in lines[0] and "LOCK_TIMEOUT" in lines[0]
    out1, err1 = first.communicate(timeout=600)
    out2, err2 = waiting.communicate(timeout=600)
    assert first.returncode == 0, err1
    assert waiting.returncode == 0, err2
    assert "waiting for it to finish" in err2 and "Traceback" not in err2
    docs = q("MATCH (d:Document) RETURN d.path AS p").records
    assert sorted(os.path.basename(os.path.dirname(r["p"])) for r in docs) == ["a"] * 3 + ["b"] * 3
    assert q("MATCH (l:Meta {id: 'lock'}) RETURN count(l) AS n").records[0]["n"] == 0


def test_documents_delete_wait_queues_behind_another_runs_lock(settings, graph, double,
                                                               tmp_path):
    # delete_and_rebuild (index/delete.py) takes the lock once for the delete and the ingest
    # after it: --wait queues the whole of it behind a run on another host, then finishes
    env = {**os.environ, **double_vars(settings), **neo4j_vars(settings),
           "LLM_CACHE_DIR": str(tmp_path / "cache"), "CHUNK_SIZE": "120", "CHUNK_OVERLAP": "20",
           "GLEAN": "0"}
    q = graph.driver.execute_query
    folder = _folder(tmp_path, "a", 0)
    done = subprocess.run([sys.executable, "-m", "neo4j_retag.cli", "ingest", str(folder),
                           "--no-topics", "--quiet"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    q("CREATE (:Meta {id: 'lock', owner: 'y', host: 'elsewhere', pid: 1, what: 'ingest', "
      "since: datetime()})")
    gone = str(folder / "a0.txt")
    refused = subprocess.run([sys.executable, "-m", "neo4j_retag.cli", "documents", "delete",
                              gone, "--rebuild", "--quiet"], env=env, capture_output=True,
                             text=True, timeout=300)
    assert refused.returncode == 1 and "--wait" in refused.stderr, refused.stderr
    waiting = subprocess.Popen([sys.executable, "-m", "neo4j_retag.cli", "documents", "delete",
                                gone, "--rebuild", "--wait", "--quiet"], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(3)
    assert waiting.poll() is None  # still queued behind the foreign lock
    assert q("MATCH (d:Document) RETURN count(d) AS n").records[0]["n"] == 3
    q("MATCH (l:Meta {id: 'lock', owner: 'y'}) DELETE l")  # the other run finished
    out, err = waiting.communicate(timeout=600)
    assert waiting.returncode == 0, err
    assert "waiting for it to finish" in err and "Traceback" not in err
    assert "communities rebuilt" in out
    docs = q("MATCH (d:Document) RETURN d.path AS p").records
    assert sorted(os.path.basename(r["p"]) for r in docs) == ["a1.txt", "a2.txt"]
    assert q("MATCH (l:Meta {id: 'lock'}) RETURN count(l) AS n").records[0]["n"] == 0
