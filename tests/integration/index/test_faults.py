"""Issue 9 on real Neo4j + GDS with the scripted double: one item's fault fails that item
only, with its reason; the next run retries it; bad records are dropped and counted."""

import json

import pytest

from neo4j_retag.community_report import ReportCounts
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import run_with_llm
from neo4j_retag.ops.stats import collect
from tests.conftest import corpus, ingest
from tests.llm_double import Raw, Reply

pytestmark = pytest.mark.integration


def only_for(marker, bad, original):
    """A handler answering ``bad`` for requests whose last message holds ``marker``."""
    def handler(body):
        if marker in body["messages"][-1]["content"]:
            return bad(body) if callable(bad) else bad
        return original(body)
    return handler


@pytest.mark.parametrize("bad,reason", [
    (Raw({"error": {"message": "model overloaded", "type": "server_error"}}), "no_choices"),
    (Raw({"choices": []}), "no_choices"),
    (Reply('{"entities": [{"name": "Scro', finish_reason="length"), "truncated"),
    ("I'm sorry, I can't help with that.", "unparseable"),
])
def test_one_text_unit_fault_fails_that_unit_with_its_reason(settings, graph, double, tmp_path,
                                                             bad, reason):
    folder = corpus(tmp_path, 3)
    original = double.script["extract"]
    double.script["extract"] = only_for("Chapter 1 ends", bad, original)
    res = ingest(settings, graph, [folder])
    assert [f.reason for f in res.text_units_failed] == [reason]
    assert res.failed_items == 1 and res.reports.ok > 0  # the others went on
    stats = collect(graph)
    assert stats["text_units_failed"] == 1 and stats["text_units_extracted"] == 2
    double.script["extract"] = original
    res = ingest(settings, graph, [folder])
    assert not res.text_units_failed and res.text_units_extracted == 1 and not res.failed_items


def test_lone_surrogates_never_reach_neo4j(settings, graph, double, tmp_path):
    (tmp_path / "a.txt").write_text("Scrooge met Marley.")
    double.script["extract"] = lambda b: (
        '{"entities": [{"name": "Scrooge \\ud83d", "type": "person", "description": '
        '"a miser \\udc00"}, {"name": "Marley"}], "relationships": [{"source": "Scrooge \\ud83d",'
        ' "target": "Marley", "description": "partners"}]}')
    res = ingest(settings, graph, [tmp_path / "a.txt"])
    assert not res.text_units_failed
    names = {r["n"] for r in graph.driver.execute_query(
        "MATCH (e:Entity) RETURN e.name AS n").records}
    assert names == {"Scrooge", "Marley"}


def test_bad_records_dropped_counted_and_the_good_ones_kept(settings, graph, double, tmp_path):
    (tmp_path / "a.txt").write_text("Scrooge met Marley and Belle.")
    double.script["extract"] = lambda b: json.dumps({
        "entities": [{"name": "Scrooge"}, {"name": "Marley"}, {"name": ""},
                     "Here are the entities (as tuples): (Belle<|>person)"],
        "relationships": [{"source": None, "target": "Marley"},
                          {"source": "Scrooge", "target": "Marley", "description": "partners"}]})
    res = ingest(settings, graph, [tmp_path / "a.txt"])
    assert not res.text_units_failed
    # the reply leaves the claims it was asked for out: counted too
    dropped = {"entity without a name": 1, "not a record": 1,
               "reply without one of its lists, none of that kind extracted": 1,
               "relationship without a source or target": 1}
    assert res.dropped_records == dropped
    stats = collect(graph)
    assert stats["entities"] == 2 and stats["relationships"] == 1
    assert stats["dropped_records"] == dropped


def test_truncated_report_fails_is_retried_and_parents_wait(settings, graph, double, tmp_path):
    folder = corpus(tmp_path, 4)
    original = double.script["report"]
    cut = Reply('{"title": "T", "summary": "cut mid-wo', finish_reason="length")
    double.script["report"] = lambda b: cut
    res = ingest(settings, graph, [folder])
    assert res.reports.failed > 0 and res.failed_items >= res.reports.failed
    failed = graph.driver.execute_query(
        "MATCH (c:Community {report_status: 'failed'}) RETURN c.report_error AS e").records
    reasons = {r["e"].split(":")[0] for r in failed}
    assert "truncated" in reasons and reasons <= {"truncated", "waiting"}
    assert not graph.driver.execute_query(  # nothing cut was stored as a report
        "MATCH (c:Community) WHERE c.full_content CONTAINS 'cut mid' RETURN c").records
    double.script["report"] = original
    res = ingest(settings, graph, [folder])
    assert res.reports.failed == 0 and res.reports.ok > 0 and not res.failed_items
    assert collect(graph)["failed_reports"] == 0


def test_no_entities_is_a_plain_outcome(settings, graph, double, tmp_path):
    (tmp_path / "a.txt").write_text("nothing capitalised here at all.")
    double.script["extract"] = lambda b: '{"entities": [], "relationships": []}'
    res = run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings,
                                                        [tmp_path / "a.txt"]))
    # (the settings ask for claims: a reply without its claims list is counted)
    assert res.outcomes == ["no entities extracted (1 reply without one of its lists, none of "
                            "that kind extracted): communities, reports and topics skipped"]
    assert res.failed_items == 0 and res.reports == ReportCounts()


def test_a_reply_with_nothing_usable_says_why_nothing_was_extracted(settings, graph, double,
                                                                    tmp_path):
    # issue 60: "no entities extracted" alone, where every record of the reply was dropped
    (tmp_path / "a.txt").write_text("The Vale Trust funds the pier.")
    double.script["extract"] = lambda b: json.dumps({
        "entities": ["The text mentions a trust and a pier. Nothing else.", 42],
        "relationships": "none"})
    res = run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings,
                                                        [tmp_path / "a.txt"]))
    assert res.outcomes == ["no entities extracted (3 not a record, 1 reply without one of "
                            "its lists, none of that kind extracted): communities, reports "
                            "and topics skipped"]


def test_failed_topic_item_keeps_topics_stale_and_the_next_run_retries(settings, graph, double,
                                                                     tmp_path):
    folder = corpus(tmp_path, 3)
    original = double.script["assign"]
    double.script["assign"] = only_for("Chapter 1 ends", "no JSON at all", original)
    res = run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, [folder]))
    assert [f.reason for f in res.topics_failed] == ["unparseable"]
    assert res.failed_items == 1
    assert graph.run("index/index_meta_all")[0]["topics_dirty"] is True
    double.script["assign"] = original
    res = run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings, [folder]))
    assert res.topics is not None and not res.topics_failed and not res.failed_items
    assert graph.run("index/index_meta_all")[0]["topics_dirty"] is False
