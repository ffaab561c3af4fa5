import asyncio
import threading
import time

import pytest

from neo4j_retag.index.elements import ExtractionWriter
from neo4j_retag.index.extract import TextUnitExtraction


class RecordingGraph:
    """Stands in for db.Graph: records each write_tx's text units, slowly, like a server."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.transactions: list[list[str]] = []
        self.fail_on = fail_on
        self.lock = threading.Lock()
        self.active = 0

    def write_tx(self, parts):
        with self.lock:
            self.active += 1
            assert self.active == 1, "two transactions at once"
        try:
            time.sleep(0.02)
            units = [u["chunk_id"] for u in dict(parts)["index/mark_chunks_extracted"]["units"]]
            assert [u["chunk_id"] for u in dict(parts)["index/merge_entities"]["units"]] == units
            if self.fail_on in units:
                raise RuntimeError("server said no")
            self.transactions.append(units)
        finally:
            with self.lock:
                self.active -= 1


def _ex(i: int) -> TextUnitExtraction:
    return TextUnitExtraction(text_unit_id=f"c{i:03d}", entities=[{"key": f"e{i}"}],
                              relationships=[], claims=[])


async def _write_all(writer: ExtractionWriter, n: int) -> list[BaseException | None]:
    async def one(i: int) -> None:
        await asyncio.sleep(0.001 * (i % 5))  # extractions finish in no particular order
        await writer.write(_ex(i))

    return await asyncio.gather(*(one(i) for i in range(n)), return_exceptions=True)


async def test_extractions_are_written_in_few_transactions_each_unit_once():
    graph = RecordingGraph()
    writer = ExtractionWriter(graph, max_units=8)
    results = await _write_all(writer, 40)
    assert results == [None] * 40
    written = [u for tx in graph.transactions for u in tx]
    assert sorted(written) == [f"c{i:03d}" for i in range(40)]  # all, none twice
    assert len(graph.transactions) < 40 and max(map(len, graph.transactions)) <= 8
    assert writer.transactions == len(graph.transactions)


async def test_a_failed_transaction_fails_every_unit_in_it_and_no_other():
    graph = RecordingGraph(fail_on="c007")
    writer = ExtractionWriter(graph, max_units=4)
    results = await _write_all(writer, 20)
    failed = {f"c{i:03d}" for i, r in enumerate(results) if isinstance(r, RuntimeError)}
    assert "c007" in failed
    written = {u for tx in graph.transactions for u in tx}
    assert failed.isdisjoint(written) and failed | written == {f"c{i:03d}" for i in range(20)}
    assert 1 <= len(failed) <= 4


@pytest.mark.parametrize("n", [0, 1])
async def test_small_runs(n):
    graph = RecordingGraph()
    assert await _write_all(ExtractionWriter(graph), n) == [None] * n
    assert len(graph.transactions) == n


class CappedGraph(RecordingGraph):
    """A transaction holding ``big`` (or more than ``cap`` text units) is over the memory."""

    def __init__(self, big: str, cap: int = 3) -> None:
        super().__init__()
        self.big, self.cap = big, cap

    def write_tx(self, parts):
        from neo4j_retag.db import TransactionTooLarge
        units = [u["chunk_id"] for u in dict(parts)["index/mark_chunks_extracted"]["units"]]
        if self.big in units or len(units) > self.cap:
            raise TransactionTooLarge("a write of index/merge_entities is over ...")
        super().write_tx(parts)


async def test_over_the_memory_only_the_text_unit_over_it_alone_fails():
    graph = CappedGraph(big="c017")
    writer = ExtractionWriter(graph, max_units=16)
    results = await _write_all(writer, 30)
    failed = {f"c{i:03d}": r for i, r in enumerate(results) if r is not None}
    assert list(failed) == ["c017"]  # not the others of its batch
    line = str(failed["c017"])
    assert "text unit c017" in line and "db.memory.transaction.max" in line
    assert "NEO4J_TX_MEMORY" in line and "\n" not in line
    written = sorted(u for tx in graph.transactions for u in tx)
    assert written == [f"c{i:03d}" for i in range(30) if i != 17]  # each once
