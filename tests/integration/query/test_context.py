"""The context data of an answer (the reports that reached map-reduce), on the real Neo4j."""

import pytest

from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import METHODS

pytestmark = pytest.mark.integration


def test_retag_context_lists_bm25_scores_and_citations(indexed, graph, double):
    q = Query(question="What did Scrooge and the ghost do?", level=0)
    a = run(indexed, lambda llm: METHODS["retag"](graph, llm, indexed, q))
    ctx = a.trace.context
    assert len(ctx) == a.trace.reports_retrieved > 0
    assert all(c.score is not None and c.score > 0 and c.rating is None for c in ctx)
    assert all(c.level == 0 and c.title for c in ctx)
    cited = {c.id for c in a.citations if c.cited_in_answer}
    assert cited and {c.id for c in ctx if c.cited} == cited


def test_global_context_is_every_report_of_the_level(indexed, graph, double):
    q = Query(question="What are the themes?", level=0)
    a = run(indexed, lambda llm: METHODS["global"](graph, llm, indexed, q))
    n = graph.run("query/reports_at_level", scope="general", level=0)
    assert {c.id for c in a.trace.context} == {r["id"] for r in n}
    assert all(c.score is None for c in a.trace.context)
