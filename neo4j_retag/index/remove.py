"""Taking documents out of the graph in transactions of bounded size.

A document's removal undoes its text units' contributions (Edge et al. 2024 §3.1.2-3.1.3:
mentions, claims, relationship evidence) and sets the dirty marks the pipeline resumes from.
One transaction for a whole document outgrew Neo4j's transaction memory (a 300-line document
under a small ``db.memory.transaction.max``: nothing deleted), so the text units go in
transactions of WRITE_BATCH_SIZE, a batch over the memory in halves, down to one text unit;
then the documents, the concepts left without a text unit and the degrees, in batches too.

Each transaction is whole. The documents are marked ``deleting`` (and the index dirty) before
the first text unit goes: a removal cut short (a crash, a server gone past
NEO4J_RETRY_SECONDS) leaves them listed, and the next `documents delete` of them, or the next
ingest of their file, finishes it.
"""

from __future__ import annotations

import logging

from ..db import MEMORY_CAP, RAISE_IT, Graph, TransactionTooLarge

log = logging.getLogger(__name__)


def remove_documents(graph: Graph, ids: list[str], *, topics: bool = True) -> dict[str, int]:
    """Remove the documents ``ids``, their text units and what only they support; marks the
    graph dirty (and the topics, with ``topics``: a delete; not an edited file, whose new
    text units are assigned to topics as they come). Returns the summed update counters
    (``nodes_deleted``, ``relationships_deleted`` ...). Raises TransactionTooLarge (one line
    naming the text unit) when one text unit alone is over Neo4j's transaction memory."""
    if not ids:
        return {}
    graph.run("index/mark_deleting", ids=ids, topics=topics)
    units = [r["id"] for r in graph.run("index/document_chunks", ids=ids)]
    size = graph.settings.neo4j.write_batch_size
    totals: dict[str, int] = {}
    for start in range(0, len(units), size):
        _sum(totals, _remove_units(graph, units[start:start + size]))
    _sum(totals, graph.run_batched("index/delete_documents", ids=ids))
    graph.run_batched("index/set_degrees")
    return totals


def _remove_units(graph: Graph, units: list[str]) -> dict[str, int]:
    try:
        return graph.run_script_tx("index/remove_units", gone=units)
    except TransactionTooLarge as err:
        if len(units) == 1:
            raise TransactionTooLarge(
                f"removing text unit {units[0]} is over Neo4j's transaction memory "
                f"({MEMORY_CAP}): {RAISE_IT}") from err
        log.warning("removing %d text units at once is over Neo4j's transaction memory (%s): "
                    "in halves", len(units), MEMORY_CAP)
    half = len(units) // 2
    return _sum(_remove_units(graph, units[:half]), _remove_units(graph, units[half:]))


def _sum(totals: dict[str, int], more: dict[str, int]) -> dict[str, int]:
    for key, n in more.items():
        totals[key] = totals.get(key, 0) + n
    return totals


__all__ = ["remove_documents"]
