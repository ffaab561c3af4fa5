"""A graph grounded by construction, on the real Neo4j + GDS with the scripted double: with a
model that selects (LLM_CLASS=small) every entity, relationship and claim rests on sentences of
the source, descriptions are those sentences, and reports are composed from them."""

import json

import pytest

from neo4j_retag.llm import Usage
from tests.conftest import ingest

pytestmark = pytest.mark.integration

ARTICLE = """Phone virus hits Nokia handsets

A program called Skulls disables Nokia smartphones. F-Secure found the program on file-sharing
networks. Mikko Hypponen of F-Secure said the damage was limited. Nokia said it would look at
the reports. The program replaces icons with skulls.
"""


def _rows(graph, query, **params):
    return [r.data() for r in graph.driver.execute_query(query, params).records]


def test_small_model_graph_rests_on_source_sentences(settings, graph, double, tmp_path):
    (tmp_path / "news.txt").write_text(ARTICLE)
    # a second article names the same pair: its text unit adds to the same relationships in
    # the same transaction, and their evidence stays parallel to their text units
    (tmp_path / "more.txt").write_text("Skulls again\n\nSkulls hit more Nokia phones. Nokia "
                                       "advised users to delete the program.\n")
    original = double.script["extract"]

    def with_invention(body):
        # the model adds a name the article never gives and its own confusion of a pair
        reply = json.loads(original(body))
        reply["entities"].append(["Nokia Corporation of Finland", "organization", [1]])
        reply["entities"].append(["Symantec", "organization", [2]])
        reply["relationships"].append(["Skulls", "Symantec", [2]])
        reply["relationships"].append(["Skulls", "Nokia", [1]])
        return json.dumps(reply)

    double.script["extract"] = with_invention
    small = settings.model_copy(update={"llm_class": "small", "report_compose_max_entities": 1})
    usage = Usage()
    res = ingest(small, graph, [tmp_path / "news.txt", tmp_path / "more.txt"], usage)
    assert not res.text_units_failed

    # every sentence of the article is a node, in order, with its place
    sentences = _rows(graph, "MATCH (:Chunk)-[h:HAS_SENTENCE]->(s:Sentence) RETURN s.text AS "
                             "text, s.location AS location ORDER BY h.order")
    news = [s for s in sentences if s["location"] == "news.txt"]
    assert news[1]["text"] == "A program called Skulls disables Nokia smartphones."
    assert {s["location"] for s in sentences} == {"news.txt", "more.txt"}

    # an entity the text does not name is not in the graph, and a name is what the text
    # gives ("Nokia", not "Nokia Corporation of Finland"); each is counted
    names = {r["name"] for r in _rows(graph, "MATCH (e:Entity) RETURN e.name AS name")}
    assert "Skulls" in names and "Nokia" in names
    assert "Symantec" not in names and "Nokia Corporation of Finland" not in names
    dropped = [d for r in _rows(graph, "MATCH (c:Chunk) RETURN c.dropped AS d") for d in r["d"]]
    # (the double's invention is added to both articles' replies: each counted on its unit)
    assert dropped.count("entity no sentence of the text unit names") == 2
    assert dropped.count("entity name cut to the words its text unit gives (kept)") == 2
    assert dropped.count("relationship without a source or target") == 2

    # every entity's description is its evidence sentences, word for word
    texts = {s["text"] for s in sentences}
    for r in _rows(graph, "MATCH (e:Entity) RETURN e.name AS name, e.description AS d, "
                          "[(e)-[:EVIDENCE]->(s) | s.text] AS evidence"):
        assert r["evidence"], r["name"]
        assert all(t in texts for t in r["evidence"])
        assert r["d"] and all(part in r["d"] for part in r["evidence"][:1]), r
    # relationships keep the ids of the sentences that state them, per text unit
    rels = _rows(graph, "MATCH (a)-[r:RELATED]->(b) RETURN a.name AS a, b.name AS b, "
                        "r.evidence AS ev, r.chunk_ids AS units")
    assert any(len(r["units"]) == 2 for r in rels)  # Skulls and Nokia, in both articles
    for r in rels:
        assert len(r["ev"]) == len(r["units"]) and all(r["ev"]), r

    # no description summary and no written report: titles only
    stages = {s for s, c in usage.stages.items() if c.calls}
    assert "summarize" not in stages and "report" not in stages
    reports = _rows(graph, "MATCH (c:Community) RETURN c.report_source AS source, c.title AS "
                           "title, c.findings AS findings, c.full_content AS content")
    assert reports and all(r["source"] == "evidence" for r in reports)
    for r in reports:
        for f in json.loads(r["findings"]):
            assert f["sentences"] and "[Data: Sources (" in f["explanation"]
            body = f["explanation"].split(" [Data:")[0]
            assert all(s in texts for s in body_sentences(body, texts)), body


    # serve's and MCP's get_text_unit and get_report give the evidence too
    from neo4j_retag.api.corpus import ReportRef, TextUnitRef, get_report, get_text_unit
    unit_id = _rows(graph, "MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE d.path ENDS WITH "
                           "'news.txt' RETURN c.id AS id")[0]["id"]
    unit = get_text_unit(graph, TextUnitRef(unit_id=unit_id))
    assert unit.location == "news.txt" and len(unit.sentences) == 6
    skulls = next(x for x in unit.sentences if x.text.startswith("A program called Skulls"))
    assert {"Skulls", "Nokia"} <= set(skulls.entities)
    cid = _rows(graph, "MATCH (c:Community) RETURN c.id AS id ORDER BY c.id LIMIT 1")[0]["id"]
    report = get_report(graph, ReportRef(report_id=cid))
    assert all(f.evidence and all(e.text in texts and e.location for e in f.evidence)
               for f in report.findings)


def body_sentences(body: str, texts: set[str]) -> list[str]:
    """The known sentences a finding's text is made of, in order (all of it, or a failure)."""
    out, rest = [], body
    while rest:
        hit = next((t for t in sorted(texts, key=len, reverse=True) if rest.startswith(t)), None)
        assert hit is not None, rest
        out.append(hit)
        rest = rest[len(hit):].lstrip()
    return out


def test_two_text_units_of_one_write_keep_a_pairs_evidence_parallel(graph):
    from neo4j_retag.index.elements import write_extractions
    from neo4j_retag.index.extract_records import TextUnitExtraction
    from neo4j_retag.model import SourceSentence

    graph.driver.execute_query("UNWIND ['u1', 'u2'] AS id CREATE (:Chunk {id: id})")

    def unit(uid: str) -> TextUnitExtraction:
        s = SourceSentence(id=f"{uid}-s000", text=f"Skulls hits Nokia ({uid}).")
        ents = [{"key": k, "name": k.title(), "type": "organization", "description": s.text,
                 "context": s.text, "evidence": [s.id]} for k in ("skulls", "nokia")]
        rel = {"source_key": "nokia", "target_key": "skulls", "description": s.text,
               "strength": 1.0, "evidence": [s.id]}
        return TextUnitExtraction(text_unit_id=uid, entities=ents, relationships=[rel],
                                  claims=[], sentences=[s])

    assert write_extractions(graph, [unit("u1"), unit("u2")]) == {}  # one transaction
    (row,) = _rows(graph, "MATCH ()-[r:RELATED]->() RETURN r.chunk_ids AS units, "
                          "r.evidence AS ev")
    assert row == {"units": ["u1", "u2"], "ev": ["u1-s000", "u2-s000"]}
    assert _rows(graph, "MATCH (e:Entity {key: 'nokia'})-[:EVIDENCE]->(s) RETURN count(s) AS n"
                 ) == [{"n": 2}]
