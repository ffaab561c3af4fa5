"""A removal's text units over Neo4j's transaction memory: a batch goes in halves, one text
unit alone over it is one line naming it (the real server: tests/integration/db/
test_transaction_memory.py)."""

import logging

import pytest

from neo4j_retag.db import TransactionTooLarge
from neo4j_retag.index import remove


class Graph:
    def __init__(self, too_many: int) -> None:
        self.too_many, self.calls = too_many, []

    def run_script_tx(self, name, gone):
        self.calls.append(list(gone))
        if len(gone) >= self.too_many:
            raise TransactionTooLarge("the statement index/remove_units is over ...")
        return {"nodes_deleted": 10 * len(gone)}


def test_text_units_over_it_go_in_halves(caplog):
    g = Graph(too_many=3)
    with caplog.at_level(logging.WARNING):
        assert remove._remove_units(g, ["a", "b", "c", "d"]) == {"nodes_deleted": 40}
    assert g.calls == [["a", "b", "c", "d"], ["a", "b"], ["c", "d"]]
    assert "in halves" in caplog.text


def test_one_text_unit_over_it_is_one_line_naming_it():
    with pytest.raises(TransactionTooLarge, match=r"^removing text unit a is over .*"
                                                  r"NEO4J_TX_MEMORY") as err:
        remove._remove_units(Graph(too_many=1), ["a"])
    assert "\n" not in str(err.value) and err.value.reason == "tx_memory"
