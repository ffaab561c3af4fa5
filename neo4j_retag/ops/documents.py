"""`neo4j-retag reset`: empty the database (graph-only; the LLM response cache on disk is
kept). Taking single documents out is `index.delete`: it rebuilds what they changed."""

from __future__ import annotations

from ..db import Graph
from ..db.lock import index_lock


def reset(graph: Graph) -> dict[str, int]:
    """Empty the database: GDS projections of this database, every node and relationship
    (graph, communities, topics, index metadata, LLM usage counters). The LLM response cache
    on disk is not touched. Returns the counts that were there (``documents``, ``text_units``,
    ``entities``, ``relationships``, ...) and ``projections`` dropped. Raises InputError while
    another run writes the index; holds the lock until everything else is gone."""
    with index_lock(graph, "reset"):
        before = graph.run("ops/stats")[0]
        dropped = graph.run("ops/drop_projections", database=graph.database)
        graph.run_script("ops/reset")
    return {**{k: v for k, v in before.items() if isinstance(v, int)},
            "projections": dropped[0]["projections"] if dropped else 0}
