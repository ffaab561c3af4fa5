"""Adding one document costs one document (issue 18): ingest N small documents, then one
more, with the LLM cache off. Communities whose level and members did not change keep their
ids (a cited id never starts naming another community), and report calls go only to
memberships the graph has not reported before - none of them without a new entity."""

import pytest

from tests.conftest import ingest

pytestmark = pytest.mark.integration

LETTERS = "abcdefgh"


def _names(doc: int) -> list[str]:
    # five capitalised names per document, none shared: the double chains them in this order
    return [f"Name{LETTERS[doc]}{LETTERS[j]}" for j in range(5)]


def _write(folder, doc: int):
    path = folder / f"doc{doc}.txt"
    path.write_text(" and ".join(_names(doc)) + " met at the harbour.")
    return path


def _communities(graph) -> list[dict]:
    return [dict(r) for r in graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general'}) "
        "OPTIONAL MATCH (e:Entity)-[:IN_COMMUNITY]->(c) "
        "RETURN c.id AS id, c.level AS level, c.membership AS membership, "
        "c.report_key AS key, c.report_source AS source, c.reused_from AS reused_from, "
        "c.report_status AS status, collect(e.name) AS names ORDER BY id").records]


def test_adding_a_document_keeps_ids_and_pays_only_changed_memberships(
        settings, graph, double, tmp_path):
    settings = settings.model_copy(update={"llm_cache": False, "glean": 0})
    folder = tmp_path / "corpus"
    folder.mkdir()
    first = [_write(folder, i) for i in range(5)]
    ingest(settings, graph, first)
    before = _communities(graph)
    assert before and all(c["status"] == "ok" for c in before)
    ids = {(c["level"], c["membership"]): c["id"] for c in before}
    keys = {c["key"] for c in before}
    calls = double.count("report")
    assert calls == len({c["key"] for c in before if c["source"] != "composed"}) > 0

    res = ingest(settings, graph, [*first, _write(folder, 5)])
    assert res.documents_new == 1 and res.communities_rebuilt and not res.failed_items
    after = _communities(graph)
    new_names = set(_names(5))
    unchanged = [c for c in after if (c["level"], c["membership"]) in ids]
    changed = [c for c in after if (c["level"], c["membership"]) not in ids]
    # every community of the first five documents is still there, under the same id
    assert len(unchanged) == len(before)
    assert all(c["id"] == ids[(c["level"], c["membership"])] for c in unchanged)
    assert all(c["key"] in keys for c in unchanged)  # the same report, not paid again
    # the new document's communities get ids never given before
    assert changed and all(c["id"] > max(ids.values()) for c in changed)
    assert all(set(c["names"]) <= new_names for c in changed)
    # report calls: exactly the new memberships an LLM report is needed for, each once
    paid = {c["key"] for c in after if c["key"] not in keys and c["source"] != "composed"}
    assert double.count("report") - calls == len(paid) > 0
    assert all(set(c["names"]) & new_names for c in after if c["key"] in paid)
    assert all(c["status"] == "ok" for c in after)
