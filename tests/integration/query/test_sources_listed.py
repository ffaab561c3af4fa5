"""Every source an answer read is listed, cited or not (issue 60): rag, local search and DRIFT
answers that cite nothing still say which text units and reports they read; and the quoted
variants answer from those sources with no answer call. Real Neo4j + GDS, the scripted double."""

import re

import pytest

from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import METHODS

pytestmark = pytest.mark.integration

UNCITED = "Scrooge remembered his school and his sister."


@pytest.mark.parametrize("method", ["rag", "local", "drift"])
def test_an_answer_citing_nothing_lists_what_it_read(indexed, graph, double, method):
    double.script["answer"] = lambda b: UNCITED  # rag's and local search's answer call
    settings = indexed.model_copy(update={"drift_n_depth": 1, "drift_k_followups": 2,
                                          "drift_primer_folds": 1})
    if method == "drift":  # no step cites anything either
        for stage in ("drift_primer", "drift_local"):
            original = double.script[stage]
            double.script[stage] = lambda b, f=original: re.sub(r" ?\[Data: [^\]]*\]", "", f(b))
        double.script["drift_reduce"] = lambda b: UNCITED
    a = run(settings, lambda llm: METHODS[method](graph, llm, settings,
                                                 Query(question="What did Scrooge remember?",
                                                       level=0)))
    assert a.answer.startswith("Scrooge remembered") and not a.citations
    kinds = {c.kind for c in a.sources}
    assert "text_unit" in kinds, a.sources
    assert all(not c.cited_in_answer for c in a.sources)
    if method == "drift":
        assert "report" in kinds  # the primer's reports


@pytest.mark.parametrize("method", ["local-quoted", "rag"])
def test_quoted_answers_are_source_sentences_cited_by_their_text_units(indexed, graph, double,
                                                                      method):
    calls = double.count("answer")
    a = run(indexed, lambda llm: METHODS[method](graph, llm, indexed, Query(
        question="What did Scrooge remember?", level=0, answer="quote")))
    assert double.count("answer") == calls  # no answer call
    assert a.trace.answer == "quote" and a.citations
    units = {r["id"]: r["text"] for r in graph.driver.execute_query(
        "MATCH (c:Chunk) RETURN c.id AS id, c.text AS text").records}
    sentences = {r["t"] for r in graph.driver.execute_query(
        "MATCH (s:Sentence) RETURN s.text AS t").records}
    for line in a.answer.split("\n"):
        body = line.split("**: ", 1)[-1].removeprefix("- ").rsplit(" [Data:", 1)[0]
        assert any(s in body for s in sentences), line
    assert all(c.kind == "text_unit" and c.id in units and c.location for c in a.citations)
