"""Issue 21 kind 1: answers never come from deleted content. After `documents delete`
without --rebuild, the reports and topics whose members changed are marked stale: no query
reads them, the trace and `stats` say so naming `ingest --resume`, and when nothing else is
left the query refuses in one line; an empty graph has no communities, reports or topics."""

import pytest

from neo4j_retag.errors import LevelError
from neo4j_retag.index.delete import delete_documents
from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import Query
from neo4j_retag.ops.stats import collect
from neo4j_retag.query import METHODS
from tests.conftest import ingest

pytestmark = pytest.mark.integration

GROUPS = {"harbour": ["Abel", "Berta", "Cyrus"], "orchard": ["Dora", "Emil", "Fiona"]}


def _corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, people in GROUPS.items():
        a, b, c = people
        (folder / f"{name}.txt").write_text(" ".join(
            f"{a} met {b} at the {name} on day {i}. {b} and {c} worked there. {c} told {a}."
            for i in range(12)))
    return folder


def _ask(settings, graph, method, question="What did Abel, Dora and Emil do there?"):
    return run_with_llm(settings, lambda llm: METHODS[method](graph, llm, settings,
                                                              Query(question=question)))


def test_deleted_content_is_never_answered_from(settings, graph, double, tmp_path):
    settings = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20})
    folder = _corpus(tmp_path)
    ingest(settings, graph, [folder])
    q = graph.driver.execute_query
    reports = {r["id"]: r["text"] for r in q(
        "MATCH (c:Community {scope: 'general'}) WHERE c.report_status = 'ok' "
        "RETURN c.id AS id, c.full_content AS text").records}
    harbour = {i for i, t in reports.items() if any(n in t for n in GROUPS["harbour"])}
    assert harbour and set(reports) - harbour

    delete_documents(graph, [str(folder / "harbour.txt")])
    stale = {r["id"] for r in q("MATCH (c:Community) WHERE c.report_status = 'stale' "
                                "RETURN c.id AS id").records}
    assert stale == harbour  # exactly the reports whose members changed
    assert collect(graph)["stale_reports"] == len(harbour)
    for method in ("global", "global-dynamic", "retag"):
        a = _ask(settings, graph, method)
        used = {c.id for c in a.trace.context}
        assert used and not used & harbour, method
        assert a.trace.stale_reports == len(harbour), method
        assert any("ingest --resume" in n for n in a.trace.notes), method

    # every document gone: nothing to answer from, said in one line
    delete_documents(graph, [str(folder / "orchard.txt")])
    with pytest.raises(LevelError, match=r"stale.*ingest --resume"):
        _ask(settings, graph, "global")
    # the next ingest leaves an empty graph without communities, reports or topics
    res = ingest(settings, graph, [])
    assert res.outcomes == ["no entities left: communities, reports and topics removed"]
    s = collect(graph)
    assert (s["entities"], s["communities"], s["community_reports"], s["topics"],
            s["stale_reports"]) == (0, 0, 0, 0, 0)
    assert q("MATCH (c:Community) RETURN count(c) AS n").records[0]["n"] == 0
    # nor report texts of the deleted documents kept for reuse
    assert q("MATCH (a:ReportArchive) RETURN count(a) AS n").records[0]["n"] == 0
    with pytest.raises(LevelError, match="no community reports"):
        _ask(settings, graph, "global")
