"""Two processes on one database (issue 9.7): `ingest a/ & ingest b/` on an empty graph gives
one indexed graph and a one-line "another ingest is running" error, never a GDS catalog clash;
a lock left by a killed run on this host is taken over, one on another host is named; a GraphRAG
import, `documents delete` and `reset` wait for the lock too (they change nothing while it is
held)."""

import os
import subprocess
import sys
import time

import pytest

from neo4j_retag.db import lock
from neo4j_retag.errors import InputError
from tests.conftest import double_vars, neo4j_vars
from tests.graphrag_fixture import write_fixture

NAMES = ["Abel", "Berta", "Cyrus", "Dora", "Emil", "Fiona", "Gus", "Hilda", "Igor", "Jana"]


def _folder(tmp_path, name, offset):
    folder = tmp_path / name
    folder.mkdir()
    for i in range(3):
        (folder / f"{name}{i}.txt").write_text(" ".join(
            f"{NAMES[(offset + i + j) % 10]} met {NAMES[(offset + 3 * i + j + 1) % 10]} in "
            f"{name} on day {i}-{j}." for j in range(30)))
    return folder


@pytest.mark.integration
def test_two_ingests_at_once(settings, graph, double, tmp_path):
    fn = double.script["extract"]
    double.script["extract"] = lambda b: (time.sleep(0.2), fn(b))[1]  # runs overlap
    env = {**os.environ, **double_vars(settings), **neo4j_vars(settings),
           "LLM_CACHE_DIR": str(tmp_path / "cache"), "CHUNK_SIZE": "120", "CHUNK_OVERLAP": "20",
           "LLM_CONCURRENCY": "2"}
    q = graph.driver.execute_query
    q("MATCH (n) DETACH DELETE n")
    # a fresh database: no schema either (both processes create it at once: deadlocks, which
    # the driver retries and we log as one line, never print)
    for r in q("SHOW CONSTRAINTS YIELD name").records:
        q(f"DROP CONSTRAINT `{r['name']}`")
    for r in q("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name").records:
        q(f"DROP INDEX `{r['name']}` IF EXISTS")
    folders = [_folder(tmp_path, "a", 0), _folder(tmp_path, "b", 5)]
    procs = [subprocess.Popen([sys.executable, "-m", "neo4j_retag.cli", "ingest", str(f),
                               "--no-topics"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for f in folders]
    outs = [(*p.communicate(timeout=600), p.returncode) for p in procs]
    outs = [(rc, out, err) for out, err, rc in outs]
    print("exit codes", [rc for rc, _, _ in outs])
    for _, _, err in outs:
        assert "already loaded" not in err and "Traceback" not in err, err
        assert "Deadlock" not in err and "will be retried" not in err, err
    codes = sorted(rc for rc, _, _ in outs)
    if codes == [0, 1]:  # the usual case: they overlapped and the second one stopped at once
        _, _, err = next(o for o in outs if o[0] == 1)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1 and "another ingest is running" in lines[0], err
    else:  # the first finished before the second started: both indexed
        assert codes == [0, 0], outs
    assert q("MATCH (l:Meta {id: 'lock'}) RETURN count(l) AS n").records[0]["n"] == 0
    assert q("CALL gds.graph.list() YIELD graphName RETURN count(*) AS n").records[0]["n"] == 0
    # the one that was turned away now indexes its folder beside the first one's
    for (rc, _, _), folder in zip(outs, folders, strict=True):
        if rc:
            done = subprocess.run([sys.executable, "-m", "neo4j_retag.cli", "ingest",
                                   str(folder), "--no-topics"], env=env, capture_output=True)
            assert done.returncode == 0, done.stderr
    docs = q("MATCH (d:Document) RETURN count(d) AS n").records[0]["n"]
    assert docs == 6


@pytest.mark.integration
def test_stale_lock_taken_over_foreign_lock_named(graph):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that no longer runs
    q = graph.driver.execute_query
    q("CREATE (:Meta {id: 'lock', owner: 'x', host: $h, pid: $p, what: 'ingest', "
      "since: datetime()})", h=lock.HOST, p=dead.pid)
    lock.acquire(graph, "ingest")
    assert q("MATCH (l:Meta {id: 'lock'}) RETURN l.owner AS o").records[0]["o"] == lock.OWNER
    lock.acquire(graph, "topic build")  # re-entrant in one process
    lock.release(graph)
    assert q("MATCH (l:Meta {id: 'lock'}) RETURN count(l) AS n").records[0]["n"] == 1
    lock.release(graph)
    assert q("MATCH (l:Meta {id: 'lock'}) RETURN count(l) AS n").records[0]["n"] == 0
    q("CREATE (:Meta {id: 'lock', owner: 'y', host: 'elsewhere', pid: 1, what: 'ingest', "
      "since: datetime()})")
    with pytest.raises(InputError, match="another ingest is running .*host elsewhere"):
        lock.acquire(graph, "ingest")


@pytest.mark.integration
def test_import_delete_and_reset_refuse_while_another_run_writes(settings, graph, tmp_path):
    from neo4j_retag.index.delete import delete_documents
    from neo4j_retag.interop.graphrag.importer import import_graphrag
    from neo4j_retag.ops.documents import reset
    q = graph.driver.execute_query
    q("MATCH (n) DETACH DELETE n")
    q("CREATE (:Document {id: 'doc0123456789', title: 'kept'})")
    q("CREATE (:Meta {id: 'lock', owner: 'y', host: 'elsewhere', pid: 1, what: 'ingest', "
      "since: datetime()})")
    folder = write_fixture(tmp_path / "graphrag")
    for attempt in (lambda: reset(graph), lambda: delete_documents(graph, ["doc0123456789"]),
                    lambda: import_graphrag(graph, settings, folder)):
        with pytest.raises(InputError, match="another ingest is running .*host elsewhere"):
            attempt()
    assert q("MATCH (n) RETURN count(n) AS n").records[0]["n"] == 2  # nothing changed
    q("MATCH (l:Meta {id: 'lock'}) DELETE l")
    assert delete_documents(graph, ["doc0123456789"])["documents"][0]["title"] == "kept"
    import_graphrag(graph, settings, folder)
    assert reset(graph)["communities"] > 0
    assert q("MATCH (n) RETURN count(n) AS n").records[0]["n"] == 0


@pytest.mark.integration
def test_sessions_mode_without_its_settings_is_one_line(settings, graph, double, tmp_path):
    from click.testing import CliRunner

    from neo4j_retag.cli import main
    (tmp_path / "a.txt").write_text("Scrooge met Marley.")
    env = {"OPENAI_BASE_URL": double.base_url, "OPENAI_MODEL": "double", "GDS_MODE": "sessions",
           "AURA_API_CLIENT_ID": "", "LLM_CACHE_DIR": str(tmp_path / "cache")}
    env |= ({"NEO4J_URI": settings.neo4j.uri, "NEO4J_PASSWORD": settings.neo4j_auth()[1]}
            if settings.neo4j.uri else {"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
                                        "NEO4J_DATA": str(settings.neo4j_data_dir)})
    out = CliRunner().invoke(main, ["ingest", str(tmp_path / "a.txt"), "--no-topics"], env=env)
    assert out.exit_code == 2, out.output
    assert "AURA_API_CLIENT_ID" in out.output and "Traceback" not in out.output
    assert len([ln for ln in out.output.splitlines() if ln.strip()]) == 1
    assert double.count() == 0  # failed before any LLM call
