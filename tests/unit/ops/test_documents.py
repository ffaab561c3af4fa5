"""`reset` over Neo4j's transaction memory deletes in smaller batches (1000, 100, 10, 1
nodes per transaction); one node alone over it is one line."""

from __future__ import annotations

from contextlib import nullcontext

import pytest

from neo4j_retag.db import TransactionTooLarge
from neo4j_retag.ops import documents


class Graph:
    database = "neo4j"

    def __init__(self, too_many: int) -> None:
        self.too_many, self.calls = too_many, []

    def run_script(self, name, batch):
        self.calls.append(batch)
        if batch >= self.too_many:
            raise TransactionTooLarge("the statement ops/reset is over ...")

    def run(self, name, **params):
        return [{"documents": 3, "projections": 0}]


def test_reset_goes_down_in_batches(monkeypatch):
    monkeypatch.setattr(documents, "index_lock", lambda graph, what: nullcontext())
    g = Graph(too_many=50)
    assert documents.reset(g)["documents"] == 3
    assert g.calls == [1000, 100, 10]
    with pytest.raises(TransactionTooLarge):
        documents.reset(Graph(too_many=1))
