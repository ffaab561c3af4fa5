"""Local search, BM25 RAG and text summarisation on the real Neo4j with the LLM double."""

import pytest

from neo4j_retag.errors import LevelError
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query.basic import ask_rag, ask_ts
from neo4j_retag.query.local import ask_local

pytestmark = pytest.mark.integration




def test_rag_cites_real_text_units(indexed, graph, double):
    a = run(indexed, lambda llm: ask_rag(graph, llm, indexed,
            Query(question="What did Scrooge remember?")))
    chunk_ids = {r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Chunk) RETURN c.id AS id").records}
    assert a.citations and all(c.id in chunk_ids for c in a.citations)
    assert "Sources 99" in a.trace.invalid_citations  # the double cites a source that was not given
    empty = run(indexed, lambda llm: ask_rag(graph, llm, indexed, Query(question="???")))
    assert empty.trace.notes and not empty.citations


def test_local_search_uses_entities_and_reports(indexed, graph, double):
    a = run(indexed, lambda llm: ask_local(graph, llm, indexed,
            Query(question="Who is Scrooge?", level=0)))
    assert a.trace.reports_retrieved >= 1
    body = next(b for k, b in reversed(double.calls) if k == "answer")
    assert "-----Entities-----" in body["messages"][-1]["content"]
    assert "Scrooge" in body["messages"][-1]["content"]


def test_local_search_refuses_a_level_without_reports(indexed, graph, double):
    calls = len(double.calls)  # the index's
    with pytest.raises(LevelError, match="level 9 does not exist"):
        run(indexed, lambda llm: ask_local(graph, llm, indexed,
            Query(question="Who is Scrooge?", level=9)))
    assert len(double.calls) == calls  # refused before any LLM call


def test_text_summarisation_maps_over_text_units(indexed, graph, double):
    a = run(indexed, lambda llm: ask_ts(graph, llm, indexed,
            Query(question="What are the themes?")))
    assert a.trace.method == "ts" and a.trace.map_batches >= 1
    assert all(c.kind == "text_unit" for c in a.citations)
