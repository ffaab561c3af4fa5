"""A query that runs on and on (a runaway plan, a lock held elsewhere) on the real server: in
a server process (``Graph(fail_fast=True)``) Neo4j stops it after SERVE_QUERY_TIMEOUT and the
caller gets one QueryTimeout line, its thread free again; the CLI's Graph sets no limit."""

import time

import pytest

from neo4j_retag.db import Graph
from neo4j_retag.errors import QueryTimeout

pytestmark = pytest.mark.integration
# a billion rows: minutes of work for the server, none of it written
SLOW = "UNWIND range(1, 1000000000) AS x WITH x WHERE x = -1 RETURN count(x) AS n"


def test_a_runaway_query_or_write_is_stopped_after_the_serve_query_timeout(settings):
    s = settings.model_copy(update={"serve": settings.serve.model_copy(
        update={"query_timeout": 1.0})})
    with Graph(s, fail_fast=True) as g:
        g.cypher = lambda name: SLOW  # type: ignore[method-assign]
        t0 = time.perf_counter()
        with pytest.raises(QueryTimeout, match=r"stopped slow/read after 1 s"):
            g.run("slow/read")
        assert time.perf_counter() - t0 < 30
        t0 = time.perf_counter()
        with pytest.raises(QueryTimeout, match=r"stopped slow/write after 1 s"):
            g.write_tx([("slow/write", {})])
        assert time.perf_counter() - t0 < 30
        g.cypher = Graph.cypher.__get__(g)  # type: ignore[method-assign]
        assert g.run("db/schema_state")  # the connection is fine after it


def test_the_cli_graph_sets_no_query_timeout(settings):
    with Graph(settings) as g:
        assert g.query_timeout is None
