"""Incremental topics (issue 18, index/topic_basis.py): an ingest that adds a document keeps
the topics when the reports they were mined from changed by at most TOPIC_REMINE_SHARE of
their text, labels only the new text units, and reuses topic reports by key; a larger change
mines again. Real Neo4j + GDS, the LLM double counting calls, LLM cache off."""

import pytest

from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import run_with_llm

pytestmark = pytest.mark.integration

LETTERS = "abcdefghijkl"
STAGES = ("map", "reduce", "topics_list", "summarize", "assign", "report", "extract")


def _write(folder, doc: int):
    # five capitalised names per document, none shared: the double chains them in this order
    path = folder / f"doc{doc}.txt"
    path.write_text(" and ".join(f"Name{LETTERS[doc]}{LETTERS[j]}" for j in range(5))
                    + " met at the harbour.")
    return path


def _ingest(settings, graph, paths):
    return run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, paths))


def _counts(double) -> dict[str, int]:
    return {k: double.count(k) for k in STAGES}


def _delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before[k] for k in STAGES}


def _topic_state(graph):
    rows = graph.driver.execute_query(
        "MATCH (t:Topic) RETURN t.name AS name, t.label AS label, "
        "COUNT { (:Chunk)-[:ABOUT_TOPIC]->(t) } AS chunks ORDER BY label").records
    unlabelled = graph.driver.execute_query(
        "MATCH (c:Chunk) WHERE c.topics_assigned IS NULL RETURN count(c) AS n").records[0]["n"]
    return [dict(r) for r in rows], unlabelled


def test_one_document_added_labels_one_text_unit_and_mines_nothing(settings, graph, double,
                                                                   tmp_path):
    settings = settings.model_copy(update={"llm_cache": False, "glean": 0,
                                           "topic_remine_share": 0.25})
    folder = tmp_path / "corpus"
    folder.mkdir()
    docs = [_write(folder, i) for i in range(6)]
    first = _ingest(settings, graph, docs)
    assert first.topics and first.topics.mined and not first.failed_items
    c1 = _counts(double)
    assert c1["map"] >= 1 and c1["reduce"] == 2 and c1["topics_list"] == 1  # one map pass
    assert c1["assign"] == 6  # one text unit per document, each labelled once
    topics1, unlabelled = _topic_state(graph)
    assert topics1 and unlabelled == 0
    topic_reports = graph.driver.execute_query(
        "MATCH (c:Community) WHERE c.scope <> 'general' RETURN c.id AS id, "
        "c.report_key AS key").records
    assert topic_reports

    # the 7th document: 5 new entities of 35 (14 % <= 25 %): topics kept
    docs.append(_write(folder, 6))
    second = _ingest(settings, graph, docs)
    assert second.documents_new == 1 and not second.failed_items
    assert second.topics and not second.topics.mined and "topics kept" in second.topics.why
    c2 = _counts(double)
    d = _delta(c2, c1)
    assert d["map"] == d["reduce"] == d["topics_list"] == d["summarize"] == 0
    assert d["assign"] == 1  # only the new text unit
    assert d["extract"] == 1
    topics2, unlabelled = _topic_state(graph)
    assert [t["name"] for t in topics2] == [t["name"] for t in topics1] and unlabelled == 0
    # the new text unit joined its topic: its entities carry the topic's label
    label = topics2[0]["label"]
    n = graph.driver.execute_query(
        f"MATCH (e:Entity:{label}) WHERE e.name STARTS WITH 'Nameg' RETURN count(e) AS n"
    ).records[0]["n"]
    assert n == 5
    # topic communities of the unchanged documents kept their reports: report calls only for
    # the new document's memberships (general ones; topic ones reuse them by key)
    new_general = graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general'})<-[:IN_COMMUNITY]-(e:Entity) "
        "WHERE e.name STARTS WITH 'Nameg' AND c.report_source <> 'composed' "
        "AND c.reused_from IS NULL RETURN count(DISTINCT c.report_key) AS n").records[0]["n"]
    assert d["report"] == new_general > 0
    kept = {r["key"] for r in topic_reports}
    now = {r["key"] for r in graph.driver.execute_query(
        "MATCH (c:Community) WHERE c.scope <> 'general' RETURN c.report_key AS key").records}
    assert kept <= now

    # three more documents: 15 new entities of 50 (30 % > 25 %): mined again, all labelled
    docs += [_write(folder, i) for i in (7, 8, 9)]
    third = _ingest(settings, graph, docs)
    assert third.topics and third.topics.mined and "mined again" in third.topics.why
    d = _delta(_counts(double), c2)
    assert d["map"] >= 1 and d["reduce"] == 2 and d["topics_list"] == 1
    assert d["assign"] == 10
    assert _topic_state(graph)[1] == 0
