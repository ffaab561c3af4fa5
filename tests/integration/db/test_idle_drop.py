"""Issue 60: a network that silently drops a bolt connection idle for 2 s (a NAT or firewall
forgetting it: no answer, no reset; tests/tcp_proxy.py's ``idle_drop``). The driver checks a
connection idle for NEO4J_LIVENESS_CHECK seconds before using it and replaces one that does
not answer within NEO4J_CONNECT_TIMEOUT, with a warning; the ingest ends as a clean run does,
in about its time, not after the server's 2-minute receive timeout per dead connection
(before: 160 s against 38 s, and no warning until then)."""

import os
import subprocess
import sys
import time

import pytest

from tests.conftest import double_vars, wipe
from tests.integration.db.test_lost_connection import STATE
from tests.integration.index.test_lock import _folder
from tests.tcp_proxy import Proxy

pytestmark = pytest.mark.integration
EXTRACTED = ("chunks", "done", "mentions", "rels", "evidence", "texts", "entities", "claims")
IDLE_DROP = 2.0  # seconds of silence after which the proxy forgets a connection


def _ingest(settings, tmp_path, folders, port, label, **extra):
    env = {**os.environ, **double_vars(settings),
           "NEO4J_URI": f"bolt://127.0.0.1:{port}", "NEO4J_PASSWORD": settings.neo4j_auth()[1],
           "LLM_CACHE_DIR": str(tmp_path / f"cache-{label}"), "CHUNK_SIZE": "60",
           "CHUNK_OVERLAP": "10", "LLM_CONCURRENCY": "2", "GLEAN": "0",
           "EMBEDDINGS": "false", **extra}
    cmd = [sys.executable, "-m", "neo4j_retag.cli", "ingest", "--no-topics", "--quiet",
           *map(str, folders)]
    t0 = time.monotonic()
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    return run, time.monotonic() - t0


def test_connections_dropped_while_idle_are_found_and_replaced(settings, graph, double,
                                                               tmp_path):
    fn = double.script["extract"]
    # each extraction outlasts the network's idle timeout: the pooled connections die between
    # two writes, as they do behind a NAT while a slow model answers
    double.script["extract"] = lambda b: (time.sleep(IDLE_DROP + 0.5), fn(b))[1]
    folders = [_folder(tmp_path, "a", 0)]
    upstream = int(settings.neo4j.bolt_uri.rsplit(":", 1)[1])
    q = graph.driver.execute_query
    with Proxy(upstream) as proxy:
        clean, clean_s = _ingest(settings, tmp_path, folders, proxy.port, "clean")
    assert clean.returncode == 0, clean.stderr
    want = q(STATE).records[0].data()
    assert want["chunks"] == want["done"] > 3
    wipe(graph)
    with Proxy(upstream, idle_drop=IDLE_DROP) as proxy:
        # the default settings: a connection idle for over NEO4J_LIVENESS_CHECK (1 s) is
        # checked before it is used again
        run, run_s = _ingest(settings, tmp_path, folders, proxy.port, "idle")
        dropped = proxy.dropped
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    assert dropped > 0  # the network did drop connections under the run
    assert "did not answer" in run.stderr, run.stderr  # said, not silent
    got = q(STATE).records[0].data()
    # nothing lost or written twice (Leiden's communities may differ: the order of the writes
    # changes the nodes' ids, and with them its partition of so small a graph)
    assert {k: got[k] for k in EXTRACTED} == {k: want[k] for k in EXTRACTED}
    assert got["communities"] > 0 and got["memberships"] >= got["entities"]
    # a dead connection costs NEO4J_CONNECT_TIMEOUT at most, not the 120 s receive timeout
    assert run_s < clean_s + 60, (run_s, clean_s, run.stderr[-2000:])
