"""`neo4j-retag reset`: empty the database (graph-only; the LLM response cache on disk is
kept). Taking single documents out is `index.delete`: it rebuilds what they changed."""

from __future__ import annotations

import logging

from ..db import MEMORY_CAP, Graph, TransactionTooLarge
from ..db.lock import index_lock

log = logging.getLogger(__name__)
# nodes deleted per transaction: a batch over Neo4j's transaction memory (big nodes, many
# relationships) is tried again ten times smaller; one node alone over it is one line
RESET_BATCHES = (1000, 100, 10, 1)


def reset(graph: Graph) -> dict[str, int]:
    """Empty the database: GDS projections of this database, every node and relationship
    (graph, communities, topics, index metadata, LLM usage counters). The LLM response cache
    on disk is not touched. Returns the counts that were there (``documents``, ``text_units``,
    ``entities``, ``relationships``, ...) and ``projections`` dropped. Raises InputError while
    another run writes the index, TransactionTooLarge (one line) when one node alone is over the
    transaction memory; holds the lock until everything else is gone."""
    with index_lock(graph, "reset"):
        before = graph.run("ops/stats")[0]
        dropped = graph.run("ops/drop_projections", database=graph.database)
        for rows in RESET_BATCHES:
            try:
                graph.run_script("ops/reset", batch=rows)
                break
            except TransactionTooLarge:
                if rows == RESET_BATCHES[-1]:
                    raise
                # the batches before were committed: the next pass deletes what is left
                log.warning("reset: %d nodes per transaction are over Neo4j's transaction "
                            "memory (%s): deleting %d at a time", rows, MEMORY_CAP, rows // 10)
    return {**{k: v for k, v in before.items() if isinstance(v, int)},
            "projections": dropped[0]["projections"] if dropped else 0}
