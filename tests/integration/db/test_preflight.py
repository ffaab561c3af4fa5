"""Issue 46 point 4: `ingest` checks GDS, the schema and the vector indexes before any paid
call, and `doctor` shows each as one line. A server without GDS is played by asking the real
Neo4j for a GDS function it does not have (the same "Unknown function 'gds.…'" error)."""

import pytest

from neo4j_retag.db import Graph
from neo4j_retag.errors import ConfigError
from neo4j_retag.ops.doctor import run_checks
from tests.conftest import corpus, ingest

pytestmark = pytest.mark.integration


@pytest.fixture
def no_gds(monkeypatch):
    real = Graph.cypher

    def cypher(self, name):
        return "RETURN gds.noSuchVersion() AS version" if name == "ops/doctor_gds" \
            else real(self, name)
    monkeypatch.setattr(Graph, "cypher", cypher)


def test_ingest_without_gds_stops_before_any_call(settings, graph, double, tmp_path, no_gds):
    with pytest.raises(ConfigError) as err:
        ingest(settings, graph, [corpus(tmp_path, 2)])
    line = str(err.value)
    assert line.startswith("Graph Data Science: the GDS plugin is not installed in Neo4j at "), line
    assert "GDS_MODE=sessions" in line and "\n" not in line
    assert double.calls == []  # not one paid call: no embedding probe, no extraction


def test_doctor_one_line_per_check(settings, graph, no_gds):
    checks = {c.name: c for c in run_checks(settings)}
    gds = checks["Graph Data Science"]
    assert not gds.ok and gds.detail.startswith("the GDS plugin is not installed")
    assert "Unknown function" not in gds.detail and "{code:" not in gds.detail
    assert checks["constraints + full-text indexes"].ok
    vec = checks["vector indexes"]
    assert vec.ok and "online" in vec.detail, vec
