"""Integration tests against the real Neo4j + OpenGDS test server (tests/conftest.py: the
project's own server on bolt 7688 / http 7475 when no Docker engine answers)."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

from neo4j_retag.config import Settings

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def settings(neo4j_env: dict) -> Settings:
    """The test server from conftest (started by the project itself when no Docker answers)."""
    return Settings(**neo4j_env)


@pytest.fixture(scope="module")
def driver(settings: Settings) -> Iterator[neo4j.Driver]:
    drv = neo4j.GraphDatabase.driver(settings.neo4j.bolt_uri, auth=settings.neo4j_auth(),
                                     connection_timeout=5.0)
    drv.verify_connectivity()
    yield drv
    drv.close()


def test_gds_version(driver: neo4j.Driver, settings: Settings) -> None:
    rec = driver.execute_query("RETURN gds.version() AS v").records[0]
    assert rec["v"].startswith(settings.services.gds_version.rsplit(".", 1)[0])


def test_leiden_intermediate_communities(driver: neo4j.Driver, settings: Settings) -> None:
    from graphdatascience import GraphDataScience

    label = f"RetagTest_{uuid.uuid4().hex[:12]}"
    graph_name = f"g_{label}"
    # two weighted triangles a-b-c and d-e-f, joined by one weak edge c-d
    edges = [("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 1.0),
             ("d", "e", 1.0), ("e", "f", 1.0), ("d", "f", 1.0), ("c", "d", 0.1)]
    driver.execute_query(
        f"UNWIND $edges AS e "
        f"MERGE (s:`{label}` {{name: e[0]}}) MERGE (t:`{label}` {{name: e[1]}}) "
        f"CREATE (s)-[:LINK {{weight: e[2]}}]->(t)",
        edges=[list(e) for e in edges],
    )
    gds = GraphDataScience(settings.neo4j.bolt_uri, auth=settings.neo4j_auth(), arrow=False,
                           show_progress=False)
    try:
        G, projected = gds.graph.project.native(
            graph_name, label, {"LINK": {"orientation": "UNDIRECTED", "properties": "weight"}})
        assert (projected.node_count, projected.relationship_count) == (6, 14)
        result = gds.leiden.write(
            G, "communities", include_intermediate_communities=True, random_seed=42,
            concurrency=1, relationship_weight_property="weight")
        assert result.node_properties_written == 6
        rows = driver.execute_query(
            f"MATCH (n:`{label}`) RETURN n.name AS name, n.communities AS c ORDER BY name"
        ).records
        levels = {r["name"]: r["c"] for r in rows}
        for value in levels.values():
            assert isinstance(value, list) and value
            assert all(isinstance(x, int) for x in value)
            assert len(value) == result.ran_levels
        final = {name: value[-1] for name, value in levels.items()}  # last = coarsest
        assert final["a"] == final["b"] == final["c"]
        assert final["d"] == final["e"] == final["f"]
        assert final["a"] != final["d"]
    finally:
        gds.graph.drop(graph_name, fail_if_missing=False)
        gds.close()
        driver.execute_query(f"MATCH (n:`{label}`) DETACH DELETE n")


@pytest.mark.browser
def test_browser_serves_connect_form(driver: neo4j.Driver, settings: Settings,
                                     tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")
    url = f"http://127.0.0.1:{settings.neo4j.http_port}/browser/"
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'chromium'}",
           "--virtual-time-budget=15000", "--dump-dom", url]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=180).stdout
    assert "<title>Neo4j Browser</title>" in dom, dom[:500]
    # the React app rendered: the connect form (disconnected) or the query editor
    assert 'data-testid="connect"' in dom or 'data-testid="activeEditor"' in dom, dom[:2000]
    # the discovery endpoint told the Browser the right Bolt address
    if 'data-testid="boltaddress"' in dom:
        assert f":{settings.neo4j.bolt_port}" in dom
