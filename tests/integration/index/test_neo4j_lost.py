"""Issue 21 kind 7: the database goes away mid-ingest. The test stops its own test Neo4j
server while a CLI `ingest` runs: after its calls were tried again for NEO4J_RETRY_SECONDS
(progress lines) it ends with one line - "Neo4j at ... unreachable: at least N of M text
units saved; rerun resumes" - and exit 2; every text unit marked extracted has its writes;
the rerun finishes the rest."""

import os
import re
import subprocess
import sys
import time

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.services import neo4j_local
from tests.conftest import double_vars, neo4j_vars, wipe
from tests.integration.index.test_lock import _folder

pytestmark = pytest.mark.integration


def test_neo4j_stopped_mid_ingest(settings, graph, double, tmp_path, neo4j_env):
    if not neo4j_env.get("neo4j_bolt_port"):
        pytest.skip("needs the project's own test server (it is stopped and started again)")
    fn = double.script["extract"]
    double.script["extract"] = lambda b: (time.sleep(0.3), fn(b))[1]
    env = {**os.environ, **double_vars(settings), **neo4j_vars(settings),
           "LLM_CACHE_DIR": str(tmp_path / "cache"), "CHUNK_SIZE": "60", "CHUNK_OVERLAP": "10",
           "LLM_CONCURRENCY": "2", "GLEAN": "0", "NEO4J_RETRY_SECONDS": "3"}
    cmd = [sys.executable, "-m", "neo4j_retag.cli", "ingest", "--no-topics", "--quiet"]
    folders = [_folder(tmp_path, n, i) for n, i in (("a", 0), ("b", 5))]
    q = graph.driver.execute_query
    proc = subprocess.Popen([*cmd, *map(str, folders)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    server = Settings(**neo4j_env)
    try:
        deadline = time.monotonic() + 300
        while q("MATCH (c:Chunk {extracted: true}) RETURN count(c) AS n").records[0]["n"] < 3:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        graph.close()
        t0 = time.monotonic()
        assert neo4j_local.stop(server)
        out, err = proc.communicate(timeout=300)
        waited = time.monotonic() - t0
    finally:
        neo4j_local.start(server)
    assert proc.returncode == 2, (out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert "Traceback" not in err, "\n".join(lines[:3] + lines[-40:])
    # progress lines while the calls are tried again (db/retry.py), then the run's one error
    progress = "WARNING neo4j_retag.db: Neo4j at bolt://"
    assert lines[0].startswith(progress) and "connection lost" in lines[0], lines
    assert all(ln.startswith(progress) for ln in lines[:-1]), lines
    m = re.fullmatch(r"error: Neo4j at bolt://\S+ unreachable: at least (\d+) of (\d+) text units "
                     r"saved; rerun resumes", lines[-1])
    assert m, lines[-1]
    saved, total = int(m.group(1)), int(m.group(2))
    assert 3 <= saved < total and waited < 120
    with Graph(settings) as g:
        q = g.driver.execute_query
        done = q("MATCH (c:Chunk {extracted: true}) RETURN count(c) AS n").records[0]["n"]
        bare = q("MATCH (c:Chunk {extracted: true}) WHERE NOT (c)-[:MENTIONS]->() "
                 "RETURN count(c) AS n").records[0]["n"]
        # each saved text unit whole, none marked without its writes; a commit whose answer
        # was lost with the server counts as saved only in the graph
        assert done >= saved and bare == 0
        assert q("MATCH (c:Chunk) RETURN count(c) AS n").records[0]["n"] == total
        rerun = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True,
                               timeout=600)
        assert rerun.returncode == 0, rerun.stderr
        assert q("MATCH (c:Chunk) WHERE c.extracted IS NULL OR NOT c.extracted "
                 "RETURN count(c) AS n").records[0]["n"] == 0
        wipe(g)
