"""KGiRAG-style iterative refinement on the real Neo4j with the LLM double."""

import json

import pytest

from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query import answer
from neo4j_retag.query.retag import RetagOptions
from tests.llm_double import names_in

pytestmark = pytest.mark.integration


def test_refinement_retrieves_more_and_stops(indexed, graph, double):
    q = "Who met Scrooge?"
    first = run(indexed, lambda llm: answer("retag", graph, llm, indexed,
            Query(question=q, level=0, options=RetagOptions(top_p=1))))
    cited = {c.id for c in first.citations}
    other = graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general', level: 0}) WHERE NOT c.id IN $cited "
        "RETURN c.title AS t LIMIT 1", cited=list(cited)).records[0]["t"]
    keywords = other.split(" and ")
    double.script["refine"] = lambda b: json.dumps(
        {"complete": False, "missing": f"more on {other}", "keywords": keywords})
    a = run(indexed, lambda llm: answer("retag", graph, llm, indexed,
            Query(question=q, level=0, options=RetagOptions(top_p=1)), refine_rounds=3))
    rounds = a.trace.refinement
    assert rounds[0].keywords == keywords and rounds[0].new_reports == 1
    assert len(rounds) <= 3 and rounds[-1].new_reports <= 1
    assert a.trace.method == "retag+refine"
    ids = {r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community) RETURN c.id AS id").records}
    assert all(c.id in ids for c in a.citations + a.sources)
    # the refined answer's sources hold what the first answer cited and the new reports
    assert cited < {c.id for c in a.sources}
    # the draft's own markers stay valid in the refined text (they were dropped as invalid)
    old = sorted(cited)[0]
    # grounded in the reports it was given (an answer about nothing there is refused)
    prompt_words = {"Analyst", "Importance", "Score", "Question", "Data", "Reports", "Report",
                    "Point", "Draft"}

    def names(b):
        return " and ".join(n for n in names_in(b["messages"][-1]["content"], 9)
                            if n not in prompt_words)
    double.script["reduce"] = lambda b: f"As the draft said, {names(b)} [Data: Reports ({old})]."
    c = run(indexed, lambda llm: answer("retag", graph, llm, indexed,
            Query(question="Who else met Scrooge?", level=0, options=RetagOptions(top_p=1)),
            refine_rounds=1))
    assert c.trace.method == "retag+refine" and c.answer.endswith(f"Reports ({old})].")
    assert [x.id for x in c.citations] == [old] and not c.trace.invalid_citations
    double.script["refine"] = lambda b: '{"complete": true, "missing": "", "keywords": []}'
    b = run(indexed, lambda llm: answer("retag", graph, llm, indexed,
            Query(question="Whom did Scrooge meet?", level=0, options=RetagOptions(top_p=1)),
            refine_rounds=3))
    assert b.trace.refinement == [] and b.trace.method == "retag"
