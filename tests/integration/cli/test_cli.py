"""The command line: one-line errors naming the setting to fix, masked secrets, stats keys,
and a killed `ingest` that resumes to the same graph without repeating an LLM call."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from tests.conftest import double_vars, neo4j_vars


def cli(args, env):
    return CliRunner().invoke(main, args, env=env)


@pytest.mark.integration
def test_wrong_password_and_dead_llm(settings, graph, tmp_path):
    env = {"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port), "NEO4J_DATA": str(
        settings.neo4j_data_dir)} if not settings.neo4j.uri else {"NEO4J_URI": settings.neo4j.uri}
    out = cli(["stats"], {**env, "NEO4J_PASSWORD": "wrong-password"})
    assert out.exit_code == 2 and "NEO4J_PASSWORD" in out.output
    if settings.neo4j.uri:
        env["NEO4J_PASSWORD"] = settings.neo4j_auth()[1]
    (tmp_path / "a.txt").write_text("Scrooge met Marley.")
    out = cli(["ingest", str(tmp_path / "a.txt"), "--no-topics"],
              {**env, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MAX_RETRIES": "0",
               "LLM_CACHE_DIR": str(tmp_path / "c")})
    assert out.exit_code == 2, out.output
    assert "OPENAI_BASE_URL" in out.output and "Traceback" not in out.output
    out = cli(["--debug", "stats"], {**env, "NEO4J_PASSWORD": "wrong-password"})
    assert out.exception is not None  # --debug lets the traceback through


@pytest.mark.integration
def test_stats_json_keys(settings, graph):
    env = ({"NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
            "NEO4J_DATA": str(settings.neo4j_data_dir)} if not settings.neo4j.uri else
           {"NEO4J_URI": settings.neo4j.uri, "NEO4J_PASSWORD": settings.neo4j_auth()[1]})
    out = cli(["stats", "--json"], env)
    data = json.loads(out.stdout)
    for key in ("documents", "text_units", "entities", "relationships", "claims",
                "communities", "community_reports", "levels"):
        assert key in data


def _snapshot(graph):
    q = graph.driver.execute_query
    return {
        "entities": sorted(r["k"] for r in q("MATCH (e:Entity) RETURN e.key AS k").records),
        "relationships": sorted((r["a"], r["b"], r["w"]) for r in q(
            "MATCH (a)-[r:RELATED]->(b) RETURN a.key AS a, b.key AS b, r.weight AS w").records),
        "claims": q("MATCH (c:Claim) RETURN count(c) AS n").records[0]["n"],
        "communities": sorted((r["l"], sorted(r["m"])) for r in q(
            "MATCH (c:Community {scope: 'general'})<-[:IN_COMMUNITY]-(e) "
            "WITH c, collect(e.key) AS m RETURN c.level AS l, m ORDER BY l").records),
        "reports": sorted(r["t"] for r in q(
            "MATCH (c:Community {scope: 'general'}) RETURN c.title AS t").records),
    }


@pytest.mark.integration
def test_killed_ingest_resumes_to_the_same_graph(settings, graph, double, tmp_path):
    # distinct text everywhere: identical prompts would legitimately share one cache entry
    names = ["Abel", "Berta", "Cyrus", "Dora", "Emil", "Fiona", "Gus", "Hilda", "Igor", "Jana",
             "Kurt", "Lena", "Milo", "Nora", "Otto", "Pia", "Quinn", "Rosa", "Sven", "Tara"]
    folder = tmp_path / "corpus"
    folder.mkdir()
    for i in range(5):
        (folder / f"d{i}.txt").write_text(" ".join(
            f"{names[(i + j) % 20]} met {names[(i * 3 + j + 1) % 20]} on day {i}-{j}."
            for j in range(40)))
    slow = {k: v for k, v in double.script.items()}
    for kind in ("extract", "glean", "report"):
        fn = slow[kind]
        double.script[kind] = lambda b, fn=fn: (time.sleep(0.15), fn(b))[1]
    env = {**os.environ, **double_vars(settings), **neo4j_vars(settings),
           "LLM_CACHE_DIR": str(tmp_path / "cache"), "CHUNK_SIZE": "120", "CHUNK_OVERLAP": "20",
           "LLM_CONCURRENCY": "2", "GLEAN": "1"}  # 2 calls per text unit: kills land as before
    cmd = [sys.executable, "-m", "neo4j_retag.cli", "ingest", str(folder), "--no-topics"]
    for kill_after in (4, 14):  # mid-extraction, then mid-reports
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        start = double.count()
        while double.count() < start + kill_after and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert subprocess.run(cmd, env=env, capture_output=True).returncode == 0
    resumed = _snapshot(graph)
    # no successful LLM call was made twice (the cache answered the second time)
    bodies = Counter(json.dumps(b, sort_keys=True) for _, b in double.calls)
    repeated = [b for b, n in bodies.items() if n > 1]
    assert len(repeated) <= 2 * 2  # at most the calls in flight at each of the two kills
    # an uninterrupted run from scratch gives the same graph
    graph.driver.execute_query("MATCH (n) DETACH DELETE n")
    graph.ensure_schema()
    assert subprocess.run(cmd, env=env, capture_output=True).returncode == 0
    assert _snapshot(graph) == resumed
