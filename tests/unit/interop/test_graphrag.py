"""GraphRAG interop: reading both parquet layouts, importing into Neo4j (idempotent, ids kept),
answering over the imported reports, and the import -> export -> import round trip."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neo4j_retag.errors import InputError
from neo4j_retag.interop.graphrag.export_plan import join_chunks
from neo4j_retag.interop.graphrag.plan import plan_import
from neo4j_retag.interop.graphrag.tables import read_output
from tests.graphrag_fixture import D, T, fixture_tables, write_fixture


def test_detects_current_layout_and_reports_columns(tmp_path):
    out = read_output(write_fixture(tmp_path / "out"))
    assert (out.layout, out.version) == ("graphrag", "GraphRAG 2.x")
    files = {f.table: f for f in out.files}
    assert files["entities"].rows == 6 and set(files["entities"].ignored) == {"x", "y"}
    assert files["relationships"].derived == ["combined_degree"]
    assert set(files["text_units"].derived) == {"relationship_ids", "covariate_ids"}
    assert set(files["communities"].derived) == {"relationship_ids", "text_unit_ids"}
    assert files["community_reports"].missing == [] and files["covariates"].rows == 1
    assert out.missing_optional == []
    assert set(out.ignored_files) == {"embeddings.entity.description.parquet", "stats.json"}


def test_missing_files_and_columns(tmp_path):
    folder = write_fixture(tmp_path / "out")
    (folder / "covariates.parquet").unlink()
    assert read_output(folder).missing_optional == ["covariates.parquet"]
    (folder / "community_reports.parquet").unlink()
    with pytest.raises(InputError, match="required file community_reports.parquet"):
        read_output(folder)
    folder = write_fixture(tmp_path / "out2")
    pq.write_table(pa.table({"id": ["x"], "target": ["y"]}), folder / "relationships.parquet")
    with pytest.raises(InputError, match="relationships.parquet lacks the required column "
                                         "'source'"):
        read_output(folder)
    with pytest.raises(InputError, match="no GraphRAG output"):
        read_output(tmp_path)
    with pytest.raises(InputError):
        read_output(tmp_path / "nope")


def _shape(plan) -> dict[str, Any]:
    """The graph a plan writes, without GraphRAG's ids (which old layouts lack)."""
    comms = {c["id"]: (c["props"]["level"], c["props"].get("parent"), sorted(c["members"]),
                       c["props"]["title"], c["props"]["rating_explanation"],
                       json.loads(c["props"]["findings"])) for c in plan.communities}
    return {"entities": sorted((e["key"], e["props"]["type"], e["props"].get("degree"))
                               for e in plan.entities),
            "relationships": sorted((r["source_key"], r["target_key"], r["props"]["weight"],
                                     tuple(r["props"]["chunk_ids"])) for r in plan.relationships),
            "mentions": sorted((m["key"], tuple(sorted(m["chunk_ids"]))) for m in plan.mentions),
            "chunks": sorted((c["id"], c["props"]["index"], c["props"].get("document_id"))
                             for c in plan.chunks),
            "communities": comms, "parents": sorted((p["parent"], p["id"]) for p in plan.parents)}


@pytest.mark.parametrize("layout,version", [("v3", "GraphRAG >= 3.0"), ("v1", "GraphRAG 1.x"),
                                            ("v0", "GraphRAG < 1.0")])
def test_older_and_newer_layouts_give_the_same_graph(tmp_path, layout, version):
    current = plan_import(read_output(write_fixture(tmp_path / "v2")))
    out = read_output(write_fixture(tmp_path / layout, layout))
    assert out.version == version
    assert out.layout == ("graphrag" if layout == "v3" else "graphrag-create_final")
    plan = plan_import(out)
    assert _shape(plan) == _shape(current)
    assert [d["metadata"] for d in plan.documents] == [d["metadata"] for d in current.documents]
    assert not plan.warnings, plan.warnings


def test_plan_keeps_ids_direction_and_links(tmp_path):
    plan = plan_import(read_output(write_fixture(tmp_path / "out")))
    # community 1 (level 0) has no children: carried down to level 1 as community 4
    assert plan.counts() == {"documents": 2, "text_units": 4, "entities": 6, "mentions": 10,
                             "relationships": 5, "claims": 1, "communities": 5,
                             "community_reports": 5}
    assert [(r.kind, r.communities) for r in plan.repairs] == [("carried", [1])]
    rel = {(r["source_key"], r["target_key"]): r["props"] for r in plan.relationships}
    assert rel[("fezziwig", "london")]["graphrag_reversed"] is True  # LONDON -> FEZZIWIG
    assert rel[("bob cratchit", "tiny tim")]["chunk_ids"] == [T[1], T[3]]
    assert rel[("bob cratchit", "tiny tim")]["strength"] == 5.0
    assert {c["id"] for c in plan.communities} == {0, 1, 2, 3, 4}
    assert sorted((p["parent"], p["id"]) for p in plan.parents) == [(0, 2), (0, 3), (1, 4)]
    assert plan.next == [{"prev": T[0], "id": T[1]}, {"prev": T[1], "id": T[2]}]
    doc = plan.documents[0]
    assert doc["props"]["graphrag_id"] == D[0] and doc["metadata"] == {"source": "gutenberg"}
    assert doc["created_at"].year == 2024


def test_odd_rows_are_reported_not_fatal(tmp_path):
    folder = write_fixture(tmp_path / "out")
    tables = fixture_tables()
    rels = tables["relationships"] + [
        {**tables["relationships"][0], "id": "rx", "source": "MARLEY", "target": "SCROOGE"},
        {**tables["relationships"][0], "id": "ry", "source": "MARLEY", "target": "GHOST"},
        {**tables["relationships"][0], "id": "rz", "source": "MARLEY", "target": "MARLEY"}]
    pq.write_table(pa.Table.from_pylist(rels), folder / "relationships.parquet")
    plan = plan_import(read_output(folder))
    text = " | ".join(plan.warnings)
    assert "1 relationships repeat an entity pair" in text
    assert "1 relationship endpoints are not in entities" in text
    assert "1 relationships without two distinct endpoints" in text
    merged = next(r for r in plan.relationships if r["target_key"] == "scrooge")
    assert merged["props"]["weight"] == 18.0
    assert any(e["key"] == "ghost" and e["props"]["type"] == "unknown" for e in plan.entities)


def test_join_chunks_undoes_the_overlap():
    assert join_chunks(["one two three", "two three four", "four five"]) == \
        "one two three four five"
    assert join_chunks(["abc", "xyz"]) == "abc\nxyz"
    assert join_chunks([]) == ""


# --- into the real Neo4j ---------------------------------------------------------------


