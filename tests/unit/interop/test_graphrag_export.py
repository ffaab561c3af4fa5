"""The GraphRAG export's mapping, without Neo4j: graph rows -> GraphRAG's tables (pure plan),
the written folder read back by the import's own reader and planner."""

from __future__ import annotations

import json
import uuid

from neo4j_retag.interop.graphrag.export_plan import ExportSource, plan_export
from neo4j_retag.interop.graphrag.exporter import write_tables
from neo4j_retag.interop.graphrag.plan import plan_import
from neo4j_retag.interop.graphrag.tables import read_output

TODAY = "2025-01-02"


def _entity(key, name, *, gid=None, degree=None, related=1, frequency=None, units=()):
    return {"key": key, "name": name, "type": "person", "description": f"{name}.",
            "graphrag_id": gid, "human_readable_id": None, "frequency": frequency,
            "degree": degree, "related": related, "chunk_ids": list(units)}


def _community(cid, level, parent, members, children=(), **props):
    return {"props": {"id": cid, "level": level, "parent": parent, **props},
            "member_keys": list(members), "children": list(children)}


def source(claims: bool = True) -> ExportSource:
    """Three entities over two text units of one document; communities 0 > 1, and 2 a
    carried-down copy; relationship marley-scrooge stored reversed from GraphRAG's."""
    return ExportSource(
        units=[{"id": "u1", "human_readable_id": None, "text": "Scrooge met Marley at dusk.",
                "n_tokens": 6, "index": 0, "document_ids": ["doc1"],
                "entity_keys": ["marley", "scrooge"], "claim_ids": ["cl1"] if claims else []},
               {"id": "u2", "human_readable_id": 7, "text": "at dusk. Belle came.",
                "n_tokens": 5, "index": 1, "document_ids": ["doc1"],
                "entity_keys": ["belle", "marley"], "claim_ids": []}],
        entities=[_entity("scrooge", "Scrooge", gid="g-scrooge", units=["u1"]),
                  _entity("marley", "Marley", degree=2, frequency=5, units=["u1", "u2"]),
                  _entity("belle", "Belle", units=["u2"])],
        relationships=[
            {"source_key": "marley", "target_key": "scrooge", "source": "Marley",
             "target": "Scrooge", "description": "partners", "weight": 2.0,
             "chunk_ids": ["u1"], "graphrag_id": "g-rel", "human_readable_id": 0,
             "reversed": True},
            {"source_key": "belle", "target_key": "marley", "source": "Belle",
             "target": "Marley", "description": "met", "weight": 1.0, "chunk_ids": ["u2"],
             "graphrag_id": None, "human_readable_id": None, "reversed": None}],
        documents=[{"props": {"id": "doc1", "title": "Carol", "source": "news"},
                    "created_at": "2024-01-01T00:00:00Z", "chunk_ids": ["u1", "u2"]}],
        communities=[
            _community(0, 0, None, ["belle", "marley", "scrooge"], [1, 2], report_status="ok",
                       title="All", summary="s", full_content="# All", rating=7.5,
                       rating_explanation="high",
                       findings=json.dumps([{"summary": "f", "explanation": "e"}])),
            _community(1, 1, 0, ["marley", "scrooge"], graphrag_id="g-c1", period="2024-05-01",
                       report_status="failed"),
            _community(2, 1, 0, ["belle"], carried=True, report_status="ok", title="Belle")],
        claims=[{"props": {"id": "cl1", "subject": "SCROOGE", "object": None, "type": "debt",
                           "status": "TRUE", "description": "owes", "source_quote": "met",
                           "chunk_id": "u1", "human_readable_id": None}}] if claims else [],
        topic_communities=3)


def plan(src=None):
    return plan_export(src or source(), overlap=0, encoding="cl100k_base", today=TODAY)


def by(rows, key="id"):
    return {r[key]: r for r in rows}


def test_ids_are_kept_or_deterministic_and_derived_columns_recomputed():
    p = plan()
    assert list(p.tables) == ["documents", "text_units", "entities", "relationships",
                              "communities", "community_reports", "covariates"]
    ents = by(p.tables["entities"], "title")
    assert ents["Scrooge"]["id"] == "g-scrooge"
    marley = ents["Marley"]["id"]
    assert uuid.UUID(marley) and plan().tables["entities"][1]["id"] == marley  # uuid5: stable
    assert marley != ents["Belle"]["id"]
    # degree: stored, else the RELATED count; frequency: stored, else the text units
    assert [(e["degree"], e["frequency"]) for e in p.tables["entities"]] == [(1, 1), (2, 5),
                                                                           (1, 1)]
    first, second = p.tables["relationships"]
    assert (first["id"], first["source"], first["target"]) == ("g-rel", "Scrooge", "Marley")
    assert first["combined_degree"] == 3 and second["human_readable_id"] == 1
    assert (second["source"], second["target"]) == ("Belle", "Marley")
    u1, u2 = p.tables["text_units"]
    assert u1["relationship_ids"] == ["g-rel"] and u2["relationship_ids"] == [second["id"]]
    assert u1["entity_ids"] == [marley, "g-scrooge"] and u1["covariate_ids"] == ["cl1"]
    assert (u1["human_readable_id"], u2["human_readable_id"]) == (0, 7)
    assert u1["document_id"] == "doc1" and u1["document_ids"] == ["doc1"]


def test_a_document_without_stored_text_is_rebuilt_from_its_overlapping_text_units():
    p = plan()
    (doc,) = p.tables["documents"]
    assert doc["text"] == "Scrooge met Marley at dusk. Belle came."
    assert doc["creation_date"] == "2024-01-01T00:00:00Z" and doc["human_readable_id"] == 1
    assert p.doc_metadata == [{"source": "news"}]  # properties that are not ours


def test_communities_leave_out_carried_copies_and_topics_with_notes():
    p = plan()
    comms = by(p.tables["communities"], "community")
    assert set(comms) == {0, 1}
    root, child = comms[0], comms[1]
    assert root["children"] == [1] and root["parent"] == -1 and root["period"] == TODAY
    assert root["title"] == "Community 0" and root["size"] == 3
    assert len(root["relationship_ids"]) == 2 and root["text_unit_ids"] == ["u1", "u2"]
    assert child["id"] == "g-c1" and child["relationship_ids"] == ["g-rel"]
    assert child["text_unit_ids"] == ["u1"] and child["period"] == "2024-05-01"
    (report,) = p.tables["community_reports"]  # only report_status ok, carried copy left out
    assert report["community"] == 0 and report["rank"] == 7.5
    assert report["findings"] == [{"summary": "f", "explanation": "e"}]
    assert json.loads(report["full_content_json"])["rating"] == 7.5
    assert p.notes == ["1 carried-down or repair-made communities not exported (GraphRAG's "
                       "query covers deeper levels itself; an import makes them again)",
                       "3 topic communities not exported (GraphRAG has no topics)"]


def test_claims_become_covariates_only_when_there_are_some():
    (cov,) = plan().tables["covariates"]
    assert (cov["subject_id"], cov["text_unit_id"], cov["covariate_type"],
            cov["source_text"]) == ("SCROOGE", "u1", "claim", "met")
    assert "covariates" not in plan(source(claims=False)).tables


def test_the_written_folder_reads_back_through_the_import_plan(tmp_path):
    files = write_tables(tmp_path, plan())
    assert files == {"documents": 1, "text_units": 2, "entities": 3, "relationships": 2,
                     "communities": 2, "community_reports": 1, "covariates": 1}
    out = read_output(tmp_path)
    assert out.layout == "graphrag" and out.missing_optional == []
    back = plan_import(out)
    assert {e["key"] for e in back.entities} == {"belle", "marley", "scrooge"}
    assert {(r["source_key"], r["target_key"]) for r in back.relationships} == {
        ("marley", "scrooge"), ("belle", "marley")}
    assert [c["props"]["text"] for c in back.chunks] == ["Scrooge met Marley at dusk.",
                                                         "at dusk. Belle came."]
    (doc,) = back.documents
    assert doc["metadata"] == {"source": "news"} and doc["props"]["graphrag_id"] == "doc1"
    assert doc["props"]["text"] == "Scrooge met Marley at dusk. Belle came."
    assert not back.warnings
