"""The pre-flight checks turn the server's errors into one line with a fix: a missing GDS
plugin, GDS not allowed, no vector indexes, vectors of another model."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ClientError

from neo4j_retag.config import Settings
from neo4j_retag.db import preflight
from neo4j_retag.errors import ConfigError


def _err(message: str) -> ClientError:
    return ClientError._hydrate_neo4j(code="Neo.ClientError.Statement.SyntaxError",
                                      message=message)


class FakeGraph:
    def __init__(self, fail: dict[str, Exception], rows: dict[str, list] | None = None):
        self.fail, self.rows = fail, rows or {}

    def run(self, name, **params):
        if name in self.fail:
            raise self.fail[name]
        return self.rows.get(name, [{}])

    def ensure_schema(self):
        pass


OK = {"ops/doctor_gds": [{"version": "2.13.9"}], "ops/doctor_fulltext": [{"english": True}],
      "db/vector_state": [{"model": None, "dimensions": None, "chunks": 0, "entities": 0,
                         "communities": 0}],
      "db/vector_indexes_state": []}
SETTINGS = Settings()


@pytest.mark.parametrize(("message", "want"), [
    ("Unknown function 'gds.version' (line 1, column 8 (offset: 7))",
     "the GDS plugin is not installed in Neo4j at bolt://"),
    ("gds.version is unavailable because it is sandboxed and has dependencies outside of "
     "the sandbox", "the GDS plugin is installed but its procedures are not allowed"),
])
def test_gds_problems_are_one_line_with_the_fix(message, want):
    g = FakeGraph({"ops/doctor_gds": _err(message)}, OK)
    found = preflight.gds(g, SETTINGS)
    assert found.problem and found.problem.startswith(want) and "Unknown" not in found.problem
    with pytest.raises(ConfigError, match="GDS_MODE=sessions") as err:
        preflight.require(g, SETTINGS)
    assert str(err.value).startswith("Graph Data Science: ") and "\n" not in str(err.value)


def test_all_passing_raises_nothing():
    g = FakeGraph({}, OK)
    preflight.require(g, SETTINGS)
    assert preflight.gds(g, SETTINGS).detail == "GDS 2.13.9"


def test_no_vector_indexes_is_named():
    g = FakeGraph({"db/vector_indexes_state": _err("Invalid input 'VECTOR'")}, OK)
    with pytest.raises(ConfigError, match=r"vector indexes: vector indexes are not available.*"
                                          r"EMBEDDINGS=false"):
        preflight.require(g, SETTINGS)
