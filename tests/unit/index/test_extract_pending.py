"""Extraction of the pending text units: when one raises a ConfigError (Neo4j gone), the
run ends with it and the other text units stop at once - none goes on to fail as "the
client has been closed" after the LLM client is closed under it, nor is marked failed."""

from __future__ import annotations

import asyncio

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import DatabaseUnreachable
from neo4j_retag.index import pipeline
from neo4j_retag.index.results import IngestResult


class Graph:
    def run(self, name, **_):
        if name == "index/pending_chunks":
            return [{"id": f"u{i}", "text": "x"} for i in range(4)]
        return [{"nodes": 4}]


async def test_a_config_error_stops_the_other_text_units(monkeypatch):
    started, finished, marked = [], [], []

    async def extract(llm, settings, unit, **_):
        started.append(unit.id)
        await asyncio.sleep(0 if unit.id == "u0" else 0.5)
        finished.append(unit.id)
        return unit.id

    class Writer:
        def __init__(self, graph):
            pass

        async def write(self, ex):
            raise DatabaseUnreachable("Neo4j at bolt://x unreachable")

    monkeypatch.setattr(pipeline, "extract_text_unit", extract)
    monkeypatch.setattr(pipeline, "ExtractionWriter", Writer)
    monkeypatch.setattr(pipeline, "mark_failed", lambda g, uid, err: marked.append(uid))
    with pytest.raises(DatabaseUnreachable):
        await pipeline.extract_pending(Graph(), None, Settings(), IngestResult(),
                                       lambda *a: None)
    await asyncio.sleep(0.7)  # long enough for any text unit left running to end
    assert finished == ["u0"] and len(started) > 1 and not marked
