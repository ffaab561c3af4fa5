"""The stage table end to end (stages.py, issue 49): an ingest against the scripted double on
real Neo4j + GDS sends only stages of the table, each request's header is the usage key it is
counted under, and every stage an ingest calls has an estimate group: `ingest --estimate`
and `stats` show every call the run paid for."""

import pytest

from neo4j_retag.index.estimate import estimate_ingest, grouped, record_actual, record_estimate
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import Usage, run_with_llm
from neo4j_retag.ops.stats import collect
from neo4j_retag.stages import Stage

pytestmark = pytest.mark.integration


def test_an_ingest_sends_table_stages_each_counted_and_estimated(settings, graph, double,
                                                                 tmp_path):
    settings = settings.model_copy(update={"llm_cache": False, "glean": 1})
    folder = tmp_path / "corpus"
    folder.mkdir()
    for doc in "abcdef":  # five names a document, none shared: communities, reports, topics
        (folder / f"{doc}.txt").write_text(
            " and ".join(f"Name{doc}{j}" for j in "vwxyz") + " met at the harbour.")
    est = estimate_ingest(settings, [folder], graph)
    usage = Usage()
    result = run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, [folder]),
                          usage)
    assert result.topics and result.topics.mined and not result.failed_items
    sent = set(double.headers)
    # topic mining runs global search: map and reduce are sent by an ingest too
    assert {Stage.EXTRACT, Stage.GLEAN, Stage.REPORT, Stage.MAP, Stage.REDUCE, Stage.TOPICS,
            Stage.TOPIC_ASSIGN, Stage.EMBED} <= sent, sent
    # the header is the usage key, and every one is the table's, of the index or query side
    assert sent == set(usage.stages) and all(Stage(s).kind in ("index", "query") for s in sent)
    assert sum(s.calls for s in usage.stages.values()) == len(double.headers)
    # every stage an ingest calls has an estimate group the estimate fills
    assert all(Stage(s).group for s in sent), sent
    actual = grouped(usage)
    assert set(actual) <= set(est.stages) and actual["topics"]["calls"] == sum(
        usage.stages[s].calls for s in sent if Stage(s).group == "topics")
    record_estimate(graph, est)
    record_actual(graph, usage)
    rows = {r["stage"]: r for r in collect(graph)["ingest_estimate"]}
    assert {k: rows[k]["actual_calls"] for k in actual} == {
        k: v["calls"] for k, v in actual.items()}
