"""GraphRAG interop: reading both parquet layouts, importing into Neo4j (idempotent, ids kept),
answering over the imported reports, and the import -> export -> import round trip."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from neo4j_retag.graphrag_export import export_graphrag, join_chunks
from neo4j_retag.graphrag_import import import_graphrag
from neo4j_retag.graphrag_plan import plan_import
from neo4j_retag.graphrag_tables import read_output
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.retag import ask_global

from .conftest import wipe

integration = pytest.mark.integration

# --- a small GraphRAG 2.x output, written with pyarrow in GraphRAG's column layout ----------

T = [f"{'t' * 3}{i}{'0' * 124}" for i in range(1, 5)]  # sha512-like text unit ids
D = ["d1" + "a" * 126, "d2" + "b" * 126]
E = {"SCROOGE": "e-scrooge", "MARLEY": "e-marley", "FEZZIWIG": "e-fezziwig",
     "LONDON": "e-london", "BOB CRATCHIT": "e-bob", "TINY TIM": "e-tim"}
TEXTS = ["Scrooge and Marley kept a counting-house. Marley was dead.",
         "Bob Cratchit worked for Scrooge and went home to Tiny Tim.",
         "Fezziwig gave a ball in London; young Scrooge danced.",
         "Tiny Tim blessed everyone, and Bob Cratchit smiled."]
RELS = [  # id, source, target, description, weight, text units
    ("r0", "SCROOGE", "MARLEY", "Scrooge and Marley were partners", 9.0, [T[0]]),
    ("r1", "SCROOGE", "FEZZIWIG", "Scrooge was Fezziwig's apprentice", 7.0, [T[2]]),
    ("r2", "LONDON", "FEZZIWIG", "Fezziwig's warehouse was in London", 4.0, [T[2]]),
    ("r3", "BOB CRATCHIT", "TINY TIM", "Bob Cratchit is Tiny Tim's father", 10.0, [T[1], T[3]]),
    ("r4", "SCROOGE", "BOB CRATCHIT", "Bob Cratchit is Scrooge's clerk", 6.0, [T[1]]),
]
ENTS = [  # title, type, description, text units
    ("SCROOGE", "PERSON", "A miser who learns generosity", [T[0], T[1], T[2]]),
    ("MARLEY", "PERSON", "Scrooge's dead partner", [T[0]]),
    ("FEZZIWIG", "PERSON", "Scrooge's kind old master", [T[2]]),
    ("LONDON", "GEO", "The city of the story", [T[2]]),
    ("BOB CRATCHIT", "PERSON", "Scrooge's clerk", [T[1], T[3]]),
    ("TINY TIM", "PERSON", "Bob Cratchit's ill son", [T[1], T[3]]),
]
COMMS = [  # community, level, parent, children, members, report title
    (0, 0, -1, [2, 3], ["SCROOGE", "MARLEY", "FEZZIWIG", "LONDON"], "Scrooge's business past"),
    (1, 0, -1, [], ["BOB CRATCHIT", "TINY TIM"], "The Cratchit family"),
    (2, 1, 0, [], ["SCROOGE", "MARLEY"], "Scrooge and Marley"),
    (3, 1, 0, [], ["FEZZIWIG", "LONDON"], "Fezziwig's London"),
]
DEGREE = {"SCROOGE": 3, "MARLEY": 1, "FEZZIWIG": 2, "LONDON": 1, "BOB CRATCHIT": 2, "TINY TIM": 1}


def _rels_in(members: list[str]) -> list[tuple]:
    return [r for r in RELS if r[1] in members and r[2] in members]


def fixture_tables() -> dict[str, list[dict[str, Any]]]:
    """GraphRAG 2.x tables as rows (columns as in graphrag/data_model/schemas.py)."""
    docs = [{"id": D[0], "human_readable_id": 1, "title": "carol.txt",
             "text": TEXTS[0] + " " + TEXTS[1] + " " + TEXTS[2], "text_unit_ids": T[:3],
             "creation_date": "2024-11-05 10:00:00 +0000", "metadata": {"source": "gutenberg"}},
            {"id": D[1], "human_readable_id": 2, "title": "tim.txt", "text": TEXTS[3],
             "text_unit_ids": [T[3]], "creation_date": "2024-11-06 09:30:00 +0000",
             "metadata": {"source": "notes"}}]
    units = [{"id": T[i], "human_readable_id": i + 1, "text": TEXTS[i], "n_tokens": 12 + i,
              "document_ids": [D[0] if i < 3 else D[1]],
              "entity_ids": [E[t] for t, _, _, tu in ENTS if T[i] in tu],
              "relationship_ids": [r[0] for r in RELS if T[i] in r[5]],
              "covariate_ids": ["c0"] if i == 0 else []} for i in range(4)]
    ents = [{"id": E[t], "human_readable_id": i, "title": t, "type": ty, "description": de,
             "text_unit_ids": tu, "frequency": len(tu), "degree": DEGREE[t], "x": 0.0, "y": 0.0}
            for i, (t, ty, de, tu) in enumerate(ENTS)]
    rels = [{"id": rid, "human_readable_id": i, "source": s, "target": t, "description": de,
             "weight": w, "combined_degree": DEGREE[s] + DEGREE[t], "text_unit_ids": tu}
            for i, (rid, s, t, de, w, tu) in enumerate(RELS)]
    comms, reports = [], []
    for cid, level, parent, children, members, title in COMMS:
        inside = _rels_in(members)
        comms.append({"id": f"uuid-c{cid}", "human_readable_id": cid, "community": cid,
                      "level": level, "parent": parent, "children": children,
                      "title": f"Community {cid}", "entity_ids": [E[m] for m in members],
                      "relationship_ids": sorted(r[0] for r in inside),
                      "text_unit_ids": sorted({u for r in inside for u in r[5]}),
                      "period": "2024-11-05", "size": len(members)})
        findings = [{"summary": f"{m} matters", "explanation": f"{m} is in {title}."}
                    for m in members[:2]]
        content = f"# {title}\n\nAbout {', '.join(members)}.\n\n" + "\n\n".join(
            f"## {f['summary']}\n\n{f['explanation']}" for f in findings)
        reports.append({"id": f"uuid-r{cid}", "human_readable_id": cid, "community": cid,
                        "level": level, "parent": parent, "children": children,
                        "title": title, "summary": f"About {', '.join(members)}.",
                        "full_content": content, "rank": 5.0 + cid,
                        "rating_explanation": "moderate impact", "findings": findings,
                        "full_content_json": json.dumps({"title": title, "findings": findings}),
                        "period": "2024-11-05", "size": len(members)})
    claims = [{"id": "c0", "human_readable_id": 0, "covariate_type": "claim", "type": "BUSINESS",
               "description": "Scrooge and Marley ran a counting-house", "subject_id": "SCROOGE",
               "object_id": "MARLEY", "status": "TRUE", "start_date": "1836-01-01T00:00:00",
               "end_date": "1843-12-24T00:00:00", "source_text": "kept a counting-house",
               "text_unit_id": T[0]}]
    return {"documents": docs, "text_units": units, "entities": ents, "relationships": rels,
            "communities": comms, "community_reports": reports, "covariates": claims}


def write_fixture(folder: Path, layout: str = "v2") -> Path:
    """Write the fixture as GraphRAG would: ``v2`` (current names), ``v3`` (text_units.
    document_id, documents.raw_data), ``v1`` (create_final_* + create_final_nodes) or ``v0``
    (pre-1.0 columns)."""
    folder.mkdir(parents=True, exist_ok=True)
    tables = fixture_tables()
    if layout == "v3":
        for u in tables["text_units"]:
            u["document_id"] = u.pop("document_ids")[0]
        for d in tables["documents"]:
            d["raw_data"] = d.pop("metadata")
    if layout in ("v1", "v0"):
        tables = _legacy(tables, layout)
    for name, rows in tables.items():
        prefix = "create_final_" if layout in ("v1", "v0") else ""
        pq.write_table(pa.Table.from_pylist(rows), folder / f"{prefix}{name}.parquet")
    # files GraphRAG writes beside the tables, which the import ignores
    pq.write_table(pa.table({"id": ["e-scrooge"], "vector": [[0.1, 0.2]]}),
                   folder / "embeddings.entity.description.parquet")
    (folder / "stats.json").write_text("{}")
    return folder


def _legacy(tables: dict[str, list[dict[str, Any]]], layout: str) -> dict[str, list[dict]]:
    nodes = []
    for cid, level, _, _, members, _ in COMMS:
        nodes += [{"id": E[m], "human_readable_id": 0, "title": m, "community": cid,
                   "level": level, "degree": DEGREE[m], "x": 0.0, "y": 0.0} for m in members]
    for e in tables["entities"]:
        del e["degree"], e["frequency"], e["x"], e["y"]
    for d in tables["documents"]:
        d["attributes"] = d.pop("metadata")
    for r in tables["community_reports"]:
        r["rank_explanation"] = r.pop("rating_explanation")
        del r["children"]
    for c in tables["communities"]:
        del c["children"]
    if layout == "v0":
        for e in tables["entities"]:
            e["name"] = e.pop("title")
            e["description_embedding"] = [0.1, 0.2]
        for d in tables["documents"]:
            d["raw_content"] = d.pop("text")
        for r in tables["relationships"]:
            r["rank"] = r.pop("combined_degree")
        for c in tables["communities"]:
            c["id"] = str(c.pop("community"))
            c["raw_community"] = c["id"]
            del c["parent"], c["entity_ids"], c["human_readable_id"]
        for r in tables["community_reports"]:
            r["community"] = str(r["community"])
            del r["parent"]
        for n in nodes:
            n["community"] = str(n["community"])
    tables["nodes"] = nodes
    return tables


# --- reading and planning (no database) --------------------------------------------------

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
    with pytest.raises(ValueError, match="required file community_reports.parquet"):
        read_output(folder)
    folder = write_fixture(tmp_path / "out2")
    pq.write_table(pa.table({"id": ["x"], "target": ["y"]}), folder / "relationships.parquet")
    with pytest.raises(ValueError, match="relationships.parquet lacks the required column "
                                         "'source'"):
        read_output(folder)
    with pytest.raises(ValueError, match="no GraphRAG output"):
        read_output(tmp_path)
    with pytest.raises(FileNotFoundError):
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
    assert plan.counts() == {"documents": 2, "text_units": 4, "entities": 6, "mentions": 10,
                             "relationships": 5, "claims": 1, "communities": 4,
                             "community_reports": 4}
    rel = {(r["source_key"], r["target_key"]): r["props"] for r in plan.relationships}
    assert rel[("fezziwig", "london")]["graphrag_reversed"] is True  # LONDON -> FEZZIWIG
    assert rel[("bob cratchit", "tiny tim")]["chunk_ids"] == [T[1], T[3]]
    assert rel[("bob cratchit", "tiny tim")]["strength"] == 5.0
    assert {c["id"] for c in plan.communities} == {0, 1, 2, 3}
    assert sorted((p["parent"], p["id"]) for p in plan.parents) == [(0, 2), (0, 3)]
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


def snapshot(graph) -> dict[str, Any]:
    """Every node and relationship with its properties, by business key (no element ids)."""
    def key(labels: list[str], p: dict[str, Any]) -> str:
        return f"{sorted(labels)}:{p.get('id', p.get('key', p.get('name')))}"

    nodes = {key(r["labels"], r["p"]): r["p"] for r in graph.driver.execute_query(
        "MATCH (n) WHERE NOT n:Meta RETURN labels(n) AS labels, properties(n) AS p").records}
    rels = sorted((key(r["al"], r["a"]), r["t"], key(r["bl"], r["b"]), json.dumps(
        r["p"], sort_keys=True, default=str)) for r in graph.driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN labels(a) AS al, properties(a) AS a, type(r) AS t, "
        "properties(r) AS p, labels(b) AS bl, properties(b) AS b").records)
    return {"nodes": json.loads(json.dumps(nodes, sort_keys=True, default=str)), "rels": rels}


@integration
def test_import_and_ask_global_cites_graphrag_community_ids(settings, graph, double, tmp_path):
    report = import_graphrag(graph, settings, write_fixture(tmp_path / "out"))
    assert report.counts["community_reports"] == 4 and not report.warnings
    assert report.levels == [{"level": 0, "communities": 2, "reports": 2, "memberships": 6},
                             {"level": 1, "communities": 2, "reports": 2, "memberships": 4}]
    q = graph.driver.execute_query
    assert q("MATCH (:Community {id: 0})-[:PARENT_OF]->(c) RETURN collect(c.id) AS ids"
             ).records[0]["ids"] in ([2, 3], [3, 2])
    meta = q("MATCH (m:Meta {id: 'index'}) RETURN m.graph_dirty AS g, m.topics_dirty AS t"
             ).records[0]
    assert (meta["g"], meta["t"]) == (False, True)
    assert q("MATCH (:Chunk)-[:MENTIONS]->(:Entity) RETURN count(*) AS n").records[0]["n"] == 10
    assert q("MATCH (:Chunk)-[:NEXT]->(:Chunk) RETURN count(*) AS n").records[0]["n"] == 2
    assert q("MATCH (:Chunk)-[:HAS_CLAIM]->(:Claim)-[:ABOUT]->(e:Entity) RETURN e.key AS k"
             ).records[0]["k"] == "scrooge"
    a = run(settings, lambda llm: ask_global(graph, llm, settings, "What are the themes?",
                                             level=0))
    assert a.citations and {c["id"] for c in a.citations} <= {0, 1}
    assert "[Data: Reports (" in a.answer
    b = run(settings, lambda llm: ask_global(graph, llm, settings, "What are the themes?",
                                             level=1))
    assert b.citations and {c["id"] for c in b.citations} <= {2, 3}
    titles = {c["id"]: c["title"] for c in a.citations + b.citations}
    assert titles.get(1, "The Cratchit family") == "The Cratchit family"
    # the ready Browser queries work on the imported graph
    rows = graph.run("explore/community", community=0)
    assert rows[0]["title"] == "Scrooge's business past" and len(rows[0]["entities"]) == 4
    assert graph.run("explore/entity", entity="Scrooge")[0]["e"]["key"] == "scrooge"
    assert len(graph.run("explore/corpus_map")) == 2


@integration
def test_topics_build_and_retag_over_an_import(settings, graph, double, tmp_path):
    from neo4j_retag.retag import ask_retag
    from neo4j_retag.topics import build_topics

    import_graphrag(graph, settings, write_fixture(tmp_path / "out"))
    out = run(settings, lambda llm: build_topics(graph, llm, settings))
    assert out["topics"]
    topic_ids = [r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community) WHERE c.scope <> 'general' RETURN c.id AS id").records]
    assert topic_ids and min(topic_ids) > 3  # topic communities never take GraphRAG's ids
    label = graph.run("topics")[0]["label"]
    rows = graph.run("explore/topic", topic=label)
    assert rows and all(r["c"]["scope"] == label for r in rows)
    a = run(settings, lambda llm: ask_retag(graph, llm, settings, "What about Scrooge?",
                                            level=0, top_p=10))
    assert a.citations and a.trace.reports_retrieved > 0


@integration
def test_importing_twice_changes_nothing(settings, graph, tmp_path):
    folder = write_fixture(tmp_path / "out")
    import_graphrag(graph, settings, folder)
    first = snapshot(graph)
    second_report = import_graphrag(graph, settings, folder)
    assert snapshot(graph) == first
    assert second_report.counts["entities"] == 6


@integration
def test_round_trip_import_export_import_is_lossless(settings, graph, tmp_path):
    import_graphrag(graph, settings, write_fixture(tmp_path / "in"))
    before = snapshot(graph)
    report = export_graphrag(graph, settings, tmp_path / "exported")
    assert report.files == {"documents": 2, "text_units": 4, "entities": 6, "relationships": 5,
                            "communities": 4, "community_reports": 4, "covariates": 1}
    # the exported tables equal GraphRAG's on every column (id lists compared as sets)
    original = fixture_tables()
    for name, rows in original.items():
        exported = pq.read_table(tmp_path / "exported" / f"{name}.parquet").to_pylist()
        assert len(exported) == len(rows), name
        by_id = {r["id"]: r for r in exported}
        for row in rows:
            got = by_id[row["id"]]
            for col, want in row.items():
                if col in ("x", "y"):
                    continue
                have = got[col]
                if isinstance(want, list) and want and isinstance(want[0], str):
                    have, want = sorted(have), sorted(want)
                assert have == want, (name, row["id"], col)
    wipe(graph)
    graph.ensure_schema()
    again = import_graphrag(graph, settings, tmp_path / "exported")
    assert not again.warnings
    assert snapshot(graph) == before


@integration
def test_community_id_collisions_raise_and_replace(settings, graph, tmp_path):
    folder = write_fixture(tmp_path / "out")
    graph.driver.execute_query("CREATE (:Community {id: 2, scope: 'general', level: 0})")
    with pytest.raises(ValueError, match=r"community ids are already used.*\[2\].*--replace"):
        import_graphrag(graph, settings, folder)
    assert import_graphrag(graph, settings, folder, replace=True).counts["communities"] == 4
    # a foreign GraphRAG run (other uuids) under the same numbers is a collision too
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    rows = pq.read_table(other / "communities.parquet").to_pylist()
    for r in rows:
        r["id"] = r["id"] + "-rerun"
    pq.write_table(pa.Table.from_pylist(rows), other / "communities.parquet")
    with pytest.raises(ValueError, match="already used"):
        import_graphrag(graph, settings, other)
    graph.driver.execute_query("MATCH (c:Community {id: 0}) DETACH DELETE c")
    graph.driver.execute_query("CREATE (:Community {id: 0, scope: 'Topic0', level: 0})")
    with pytest.raises(ValueError, match="Topic0.*topics build"):
        import_graphrag(graph, settings, other, replace=True)
    # refused before anything was deleted or written
    assert sorted(graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general'}) RETURN collect(c.graphrag_id) AS g"
    ).records[0]["g"]) == ["uuid-c1", "uuid-c2", "uuid-c3"]


@integration
def test_export_of_an_ingested_graph_imports_back(settings, graph, double, tmp_path):
    from .conftest import corpus, ingest

    settings = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20,
                                           "max_cluster_size": 3})
    ingest(settings, graph, [corpus(tmp_path, 2)])
    q = graph.driver.execute_query
    count = ("RETURN COUNT { (:Entity) } AS e, COUNT { ()-[:RELATED]->() } AS r, "
             "COUNT { (:Community {scope: 'general'}) } AS c, COUNT { (:Chunk) } AS t, "
             "COUNT { (c:Community) WHERE c.report_status = 'ok' } AS rep, "
             "COUNT { ()-[:IN_COMMUNITY]->() } AS m, COUNT { (:Claim) } AS cl")
    before = q(count).records[0].data()
    texts = {r["id"]: r["text"] for r in q("MATCH (d:Document)<-[:PART_OF]-(c:Chunk) "
                                           "WITH d, c ORDER BY c.index RETURN d.id AS id, "
                                           "collect(c.text) AS text").records}
    export_graphrag(graph, settings, tmp_path / "exported")
    docs = pq.read_table(tmp_path / "exported" / "documents.parquet").to_pylist()
    # a document's text is rebuilt from its overlapping text units
    assert all(d["text"].startswith(texts[d["id"]][0][:50]) for d in docs)
    assert all(d["text"].endswith(texts[d["id"]][-1][-50:]) for d in docs)
    wipe(graph)
    graph.ensure_schema()
    report = import_graphrag(graph, settings, tmp_path / "exported")
    assert report.layout == "graphrag" and not report.warnings, report.warnings
    assert q(count).records[0].data() == before
    # the document ids are the same content hashes, so re-ingesting the corpus adds nothing
    res = ingest(settings, graph, [tmp_path / "corpus"])
    assert res.documents_new == 0
    a = run(settings, lambda llm: ask_global(graph, llm, settings, "themes?", level=0))
    assert a.citations


@integration
def test_cli_import_export_browse(settings, graph, tmp_path):
    from neo4j_retag.cli import main
    from neo4j_retag.cli_interop import register

    register(main)
    env = {"NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
           "NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
           "NEO4J_DATA": str(settings.neo4j_data_dir), "NEO4J_RETAG_HOME": str(settings.home)}
    if settings.neo4j_uri:
        env |= {"NEO4J_URI": settings.neo4j_uri,
                "NEO4J_PASSWORD": settings.neo4j_password.get_secret_value()}
    cli = CliRunner()
    out = cli.invoke(main, ["import", "graphrag", str(write_fixture(tmp_path / "in")), "--json"],
                     env=env)
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["counts"]["communities"] == 4
    out = cli.invoke(main, ["import", "graphrag", str(tmp_path / "in")], env=env)
    assert out.exit_code == 0 and "GraphRAG 2.x" in out.output, out.output
    out = cli.invoke(main, ["import", "graphrag", str(tmp_path)], env=env)
    assert out.exit_code == 1 and "no GraphRAG output" in out.output
    out = cli.invoke(main, ["export", str(tmp_path / "exp")], env=env)
    assert out.exit_code == 0 and (tmp_path / "exp" / "community_reports.parquet").exists()
    out = cli.invoke(main, ["browse"], env=env)
    assert out.exit_code == 0, out.output
    assert "explore/community.cypher" in out.output and ":param community" in out.output
    if not settings.neo4j_uri:
        assert f"http://127.0.0.1:{settings.neo4j_http_port}/browser/" in out.output
        assert settings.password_file.read_text().strip() in out.output


def test_browse_for_a_remote_server_prints_no_password():
    from neo4j_retag.cli import main
    from neo4j_retag.cli_interop import register

    register(main)
    out = CliRunner().invoke(main, ["browse"], env={
        "NEO4J_URI": "neo4j+s://abcd.databases.neo4j.io", "NEO4J_PASSWORD": "s3cret-pw"})
    assert out.exit_code == 0, out.output
    assert "s3cret-pw" not in out.output and "neo4j+s://abcd.databases.neo4j.io" in out.output
    assert "NEO4J_PASSWORD" in out.output
