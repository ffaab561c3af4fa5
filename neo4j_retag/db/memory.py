"""Neo4j's transaction memory (``db.memory.transaction.max``): the one error a write over it
is, and the reason a failed item carries for it."""

from __future__ import annotations

from neo4j.exceptions import Neo4jError

from ..errors import RetagError

MEMORY_CAP = "db.memory.transaction.max"
TX_MEMORY = "tx_memory"  # the Failure reason of an item over it (an oversized text unit)
RAISE_IT = "raise it (NEO4J_TX_MEMORY for the local server, else in neo4j.conf)"


class TransactionTooLarge(RetagError):
    """A write over Neo4j's transaction memory (``MemoryPoolOutOfMemoryError``). Raised from
    inside the transaction function so that the driver does not retry it as a transient
    error: a smaller write is the only way on (``Graph.write`` splits its rows,
    ``Graph.run_batched`` its batches). An item it fails is counted as ``tx_memory``."""

    reason = TX_MEMORY


def too_large(err: Neo4jError, what: str) -> TransactionTooLarge | None:
    """``err`` as the one-line TransactionTooLarge naming ``what``, when it is Neo4j's
    transaction-memory error; else None."""
    if "MemoryPoolOutOfMemoryError" not in f"{err.code} {err}":
        return None
    return TransactionTooLarge(f"{what} is over Neo4j's transaction memory ({MEMORY_CAP}): "
                               f"{RAISE_IT}")


__all__ = ["MEMORY_CAP", "RAISE_IT", "TX_MEMORY", "TransactionTooLarge", "too_large"]
