"""Naming documents to delete: ids, id prefixes, paths as given or absolute, folders, records;
deletes over Neo4j's transaction memory: several documents go one document per transaction,
one document alone over it is one line naming it."""

import logging
import os

import pytest

from neo4j_retag.db import TransactionTooLarge
from neo4j_retag.index import delete
from neo4j_retag.index.delete import _matches

DOC = {"id": "ab" * 32, "path": "corpus/news/a.txt"}
REC = {"id": "cd" * 32, "path": "/data/items.jsonl#3"}


def test_ids_and_prefixes():
    assert _matches("ab" * 32, DOC) and _matches("abababab", DOC)
    assert not _matches("abab", DOC)  # too short a prefix to be safe


def test_paths_folders_and_record_files(tmp_path, monkeypatch):
    assert _matches("corpus/news/a.txt", DOC) and _matches("corpus/news/", DOC)
    assert not _matches("corpus/new", DOC)  # a prefix that is no folder
    assert _matches("/data/items.jsonl", REC) and not _matches("/data/items.json", REC)
    monkeypatch.chdir(tmp_path)
    assert _matches(os.path.join(str(tmp_path), "corpus/news/a.txt"), DOC)


class Graph:
    def __init__(self, too_many: int) -> None:
        self.too_many, self.calls = too_many, []

    def run_script_tx(self, name, ids):
        self.calls.append(list(ids))
        if len(ids) >= self.too_many:
            raise TransactionTooLarge("the statement index/delete_documents is over ...")
        return {"nodes_deleted": 10 * len(ids)}



def test_several_documents_go_one_at_a_time(caplog):
    g = Graph(too_many=2)
    with caplog.at_level(logging.WARNING):
        assert delete._delete(g, ["a", "b", "c"]) == {"nodes_deleted": 30}
    assert g.calls == [["a", "b", "c"], ["a"], ["b"], ["c"]]
    assert "one at a time" in caplog.text


def test_one_document_over_it_is_one_line_naming_it():
    with pytest.raises(TransactionTooLarge, match=r"^deleting document a is over .*"
                                                  r"NEO4J_TX_MEMORY"):
        delete._delete(Graph(too_many=1), ["a"])
