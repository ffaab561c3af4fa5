"""Issue 46 point 1 (a regression): a connection lost during `ingest` - the server gone for a
few seconds, every connection reset once, a silent drop - is tried again for
NEO4J_RETRY_SECONDS with progress lines, and the run ends in exit 0 with the graph a clean
run gives (nothing written twice). The driver reaches Neo4j through tests/tcp_proxy.py."""

import os
import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import double_vars, wipe
from tests.integration.index.test_lock import _folder
from tests.tcp_proxy import Proxy

pytestmark = pytest.mark.integration

# what a clean run and a faulted one must agree on (counts that a duplicate write changes)
STATE = """
MATCH (c:Chunk) WITH count(c) AS chunks, sum(CASE WHEN c.extracted THEN 1 ELSE 0 END) AS done
OPTIONAL MATCH (:Chunk)-[m:MENTIONS]->(:Entity) WITH chunks, done, count(m) AS mentions
OPTIONAL MATCH (:Entity)-[r:RELATED]->(:Entity)
WITH chunks, done, mentions, count(r) AS rels, sum(size(r.chunk_ids)) AS evidence,
     sum(size(r.descriptions)) AS texts
OPTIONAL MATCH (e:Entity) WITH chunks, done, mentions, rels, evidence, texts, count(e) AS entities
OPTIONAL MATCH (k:Claim) WITH chunks, done, mentions, rels, evidence, texts, entities,
     count(k) AS claims
OPTIONAL MATCH (c:Community)
WITH chunks, done, mentions, rels, evidence, texts, entities, claims, count(c) AS communities
OPTIONAL MATCH (:Entity)-[i:IN_COMMUNITY]->(:Community)
RETURN chunks, done, mentions, rels, evidence, texts, entities, claims, communities,
       count(i) AS memberships
"""


def _ingest(settings, tmp_path, folders, port, fault=None):
    env = {**os.environ, **double_vars(settings),
           "NEO4J_URI": f"bolt://127.0.0.1:{port}", "NEO4J_PASSWORD": settings.neo4j_auth()[1],
           "LLM_CACHE_DIR": str(tmp_path / f"cache-{fault}"), "CHUNK_SIZE": "60",
           "CHUNK_OVERLAP": "10", "LLM_CONCURRENCY": "2", "GLEAN": "0",
           "NEO4J_RETRY_SECONDS": "30", "EMBEDDINGS": "false"}
    cmd = [sys.executable, "-m", "neo4j_retag.cli", "ingest", "--no-topics", "--quiet",
           *map(str, folders)]
    t0 = time.monotonic()
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600), t0


def test_lost_connections_during_ingest_are_retried(settings, graph, double, tmp_path):
    fn = double.script["extract"]
    double.script["extract"] = lambda b: (time.sleep(0.2), fn(b))[1]
    folders = [_folder(tmp_path, n, i) for n, i in (("a", 0), ("b", 5))]
    upstream = int(settings.neo4j.bolt_uri.rsplit(":", 1)[1])
    q = graph.driver.execute_query
    with Proxy(upstream) as proxy:
        clean, _ = _ingest(settings, tmp_path, folders, proxy.port)
        assert clean.returncode == 0, clean.stderr
        want = q(STATE).records[0].data()
        assert want["chunks"] == want["done"] > 5 and want["communities"] > 0
        for kind, seconds in (("refuse", 4.0), ("reset", 0.0), ("blackhole", 3.0)):
            wipe(graph)

            def fault(kind=kind, seconds=seconds):
                # once a few text units are saved: mid-extraction, writes under way
                while q("MATCH (c:Chunk {extracted: true}) RETURN count(c) AS n"
                        ).records[0]["n"] < 2:
                    time.sleep(0.05)
                if kind == "reset":
                    for _ in range(3):  # a few resets, spread over the writes
                        proxy.reset_all()
                        time.sleep(0.7)
                else:
                    proxy.outage(seconds, kind)

            t = threading.Thread(target=fault, daemon=True)
            t.start()
            run, _ = _ingest(settings, tmp_path, folders, proxy.port, kind)
            t.join(30)
            assert run.returncode == 0, (kind, run.stderr[-3000:])
            assert "Traceback" not in run.stderr, kind
            if kind != "reset":  # a reset between two calls is not seen at all
                assert "connection lost during" in run.stderr, (kind, run.stderr)
            assert q(STATE).records[0].data() == want, kind
    wipe(graph)
