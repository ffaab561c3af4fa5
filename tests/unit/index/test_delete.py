"""Naming documents to delete: ids, id prefixes, paths as given or absolute, folders, records
(the removal's batches: test_remove.py)."""

import os

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
