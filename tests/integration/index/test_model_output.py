"""Issue 48 items 1-3 on real Neo4j + GDS: extraction replies bounded and counted the same
in JSON schema and tuples, separators inside a field stored as text; an endpoint whose 200 is
no chat completion stops the ingest after one request, nothing marked failed; dynamic
selection reads a rating written as a word or a fraction; the lazy index's concepts in
Devanagari, Greek and Hangul."""

import json

import pytest

from neo4j_retag.errors import ConfigError
from neo4j_retag.index.extract_records import NO_LIST, OVER_CHARS, OVER_ITEMS
from neo4j_retag.index.tuples import TOO_FEW
from neo4j_retag.ops.stats import collect
from tests.conftest import ingest
from tests.integration.query.test_dynamic import build_tree, run
from tests.unit.llm.test_not_chat import Stub

pytestmark = pytest.mark.integration


def _names(graph):
    return {r["n"]: r["d"] for r in graph.driver.execute_query(
        "MATCH (e:Entity) RETURN e.name AS n, e.description AS d").records}


def test_json_schema_and_tuple_replies_are_bounded_and_counted_alike(settings, graph, double,
                                                                      tmp_path):
    s = settings.model_copy(update={"embeddings": False, "glean": 0})
    s.llm.schema_max_items, s.llm.schema_max_chars = 5, 200
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "json.txt").write_text("The Quarry Guild met at Fenwick Hall.")
    # the description's words are the text's: a written description is held to its evidence
    (tmp_path / "docs" / "tuples.txt").write_text(
        "Ada Fenwick leads the Quarry Guild. She leads the guild, complete, since 2001.")

    def extract(body):
        text = body["messages"][-1]["content"]
        if "Fenwick Hall" in text:
            return json.dumps({"entities": [
                {"name": f"Stone {i}", "type": "organization", "description": "granite " * 80}
                for i in range(9)], "relationships": []})
        return ('("entity"<|>ADA FENWICK<|>PERSON<|>Leads ## the guild <|COMPLETE|> since '
                '2001)##("entity"<|>QUARRY GUILD)##("relationship"<|>ADA FENWICK<|>QUARRY '
                'GUILD<|>leads<|>8)<|COMPLETE|>')
    double.script["extract"] = extract
    res = ingest(s, graph, [tmp_path / "docs"])
    assert not res.text_units_failed
    names = _names(graph)
    assert sum(n.startswith("Stone ") for n in names) == 5
    assert all(len(d) <= 200 for n, d in names.items() if n.startswith("Stone "))
    assert "Leads ## the guild <|COMPLETE|> since 2001" in names["ADA FENWICK"]
    # the claims call is answered with the same entity list, no claims in it: counted
    want = {OVER_ITEMS: 4, OVER_CHARS: 5, TOO_FEW: 1, NO_LIST: 1}
    assert res.dropped_records == want and collect(graph)["dropped_records"] == want


def test_an_endpoint_answering_status_json_stops_the_ingest_at_one_request(settings, graph,
                                                                          tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(4):
        (folder / f"d{i}.txt").write_text(f"Mara Lind wrote letter {i} to the Tidewater Board.")
    with Stub(200, "application/json", '{"status": "ok", "service": "gateway"}') as stub:
        s = settings.model_copy(update={"embeddings": False, "openai_base_url": stub.url,
                                        "llm_concurrency": 4})
        with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
            ingest(s, graph, [folder])
    assert stub.calls["POST"] == 1
    stats = collect(graph)
    assert stats["text_units_failed"] == 0  # the endpoint is wrong, not the text units


def test_dynamic_selection_reads_words_and_fractions(settings, graph, double):
    build_tree(graph)
    forms = {"Ghost stories": "high", "Money and trade": "0/10",
             "Ghost of Christmas Past": "80%", "Ghost of Marley": "irrelevant",
             "Cratchit household": "1 out of 10", "Ghost visits Fezziwig": "four"}

    def rate(body):
        info = body["messages"][-1]["content"].split("Question:")[0]
        title = next(t for t in sorted(forms, key=len, reverse=True) if t in info)
        return json.dumps({"rating": forms[title], "reason": "scripted"})
    double.script["rate"] = rate
    answer, usage = run(settings, graph)
    sel = answer.trace.selection
    assert sel.failures == 0 and sel.rated == 6
    assert {c.id for c in answer.trace.context} == {111}  # 1 -> 11 -> 111; 12 and 13 not
    assert usage.stages["rate"].calls == 6  # no form asked again


def test_lazy_concepts_in_devanagari_greek_and_hangul(settings, graph, double, tmp_path):
    s = settings.model_copy(update={"index_method": "lazy", "embeddings": False})
    folder = tmp_path / "docs"
    folder.mkdir()
    texts = {
        "hi.txt": "अनीता शर्मा ने पुस्तकालय खोला। अनीता शर्मा ने पुस्तकालय के लिए किताबें दीं।",
        "el.txt": "Η Ελένη Μαρκοπούλου ίδρυσε τη σχολή. Η Ελένη Μαρκοπούλου διδάσκει εκεί.",
        "ko.txt": ("정하늘은 대구시청에서 일한다. 정하늘이 보고서를 썼다. "
                   "시장은 정하늘의 보고서를 읽었다."),
    }
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    res = ingest(s, graph, [folder])
    got = {r["key"] for r in graph.driver.execute_query(
        "MATCH (k:Concept) RETURN k.key AS key").records}
    assert {"अनीता शर्मा", "पुस्तकालय", "ελένη μαρκοπούλου", "정하늘", "보고서"} <= got, got
    assert not {"η ελένη μαρκοπούλου", "पुस्तक", "정하늘은"} & got
    assert double.count() == 0 and not [o for o in res.outcomes if "gave no concept" in o]
