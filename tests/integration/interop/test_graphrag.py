"""GraphRAG interop: reading both parquet layouts, importing into Neo4j (idempotent, ids kept),
answering over the imported reports, and the import -> export -> import round trip."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from neo4j_retag.errors import InputError
from neo4j_retag.interop.graphrag.exporter import export_graphrag
from neo4j_retag.interop.graphrag.importer import import_graphrag
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query.global_search import ask_global
from neo4j_retag.query.retag import RetagOptions
from tests.conftest import neo4j_vars, wipe
from tests.graphrag_fixture import fixture_tables, write_fixture

integration = pytest.mark.integration

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
    assert report.counts["community_reports"] == 5 and not report.warnings
    # community 1 has no children: carried down to level 1 (id 4), so level 1 covers the graph
    assert [(r.kind, r.communities) for r in report.repairs] == [("carried", [1])]
    assert report.levels == [{"level": 0, "communities": 2, "reports": 2, "memberships": 6},
                             {"level": 1, "communities": 3, "reports": 3, "memberships": 6}]
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
    a = run(settings, lambda llm: ask_global(graph, llm, settings,
            Query(question="What are the themes?", level=0)))
    assert a.citations and {c.id for c in a.citations} <= {0, 1}
    assert "[Data: Reports (" in a.answer
    b = run(settings, lambda llm: ask_global(graph, llm, settings,
            Query(question="What are the themes?", level=1)))
    assert b.citations and {c.id for c in b.citations} <= {2, 3, 4}
    titles = {c.id: c.title for c in a.citations + b.citations}
    assert titles.get(1, "The Cratchit family") == "The Cratchit family"
    # the ready Browser queries work on the imported graph
    rows = graph.run("explore/community", community=0)
    assert rows[0]["title"] == "Scrooge's business past" and len(rows[0]["entities"]) == 4
    assert graph.run("explore/entity", entity="Scrooge")[0]["e"]["key"] == "scrooge"
    assert len(graph.run("explore/corpus_map")) == 2


@integration
def test_topics_build_and_retag_over_an_import(settings, graph, double, tmp_path):
    from neo4j_retag.index.topics import build_topics
    from neo4j_retag.query.retag import ask_retag

    import_graphrag(graph, settings, write_fixture(tmp_path / "out"))
    out = run(settings, lambda llm: build_topics(graph, llm, settings))
    assert out.topics
    topic_ids = [r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community) WHERE c.scope <> 'general' RETURN c.id AS id").records]
    assert topic_ids and min(topic_ids) > 3  # topic communities never take GraphRAG's ids
    label = graph.run("query/topics")[0]["label"]
    rows = graph.run("explore/topic", topic=label)
    assert rows and all(r["c"]["scope"] == label for r in rows)
    a = run(settings, lambda llm: ask_retag(graph, llm, settings,
            Query(question="What about Scrooge?", level=0, options=RetagOptions(top_p=10))))
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
    # the carried copy (community 4) is not GraphRAG's: not exported, made again on import
    assert report.files == {"documents": 2, "text_units": 4, "entities": 6, "relationships": 5,
                            "communities": 4, "community_reports": 4, "covariates": 1}
    assert any("1 carried-down" in n for n in report.notes)
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
    with pytest.raises(InputError, match=r"community ids are already used.*\[2\].*--replace"):
        import_graphrag(graph, settings, folder)
    assert import_graphrag(graph, settings, folder, replace=True).counts["communities"] == 5
    # a foreign GraphRAG run (other uuids) under the same numbers is a collision too
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    rows = pq.read_table(other / "communities.parquet").to_pylist()
    for r in rows:
        r["id"] = r["id"] + "-rerun"
    pq.write_table(pa.Table.from_pylist(rows), other / "communities.parquet")
    with pytest.raises(InputError, match="already used"):
        import_graphrag(graph, settings, other)
    graph.driver.execute_query("MATCH (c:Community {id: 0}) DETACH DELETE c")
    graph.driver.execute_query("CREATE (:Community {id: 0, scope: 'Topic0', level: 0})")
    with pytest.raises(InputError, match="Topic0.*topics build"):
        import_graphrag(graph, settings, other, replace=True)
    # refused before anything was deleted or written
    assert sorted(graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general'}) RETURN collect(c.graphrag_id) AS g"
    ).records[0]["g"]) == ["uuid-c1", "uuid-c2", "uuid-c3"]


@integration
def test_export_of_an_ingested_graph_imports_back(settings, graph, double, tmp_path):
    from tests.conftest import corpus, ingest

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
    a = run(settings, lambda llm: ask_global(graph, llm, settings,
            Query(question="themes?", level=0)))
    assert a.citations


@integration
def test_cli_import_export_browse(settings, graph, tmp_path):
    from neo4j_retag.cli import main
    env = neo4j_vars(settings)
    cli = CliRunner()
    out = cli.invoke(main, ["import", "graphrag", str(write_fixture(tmp_path / "in")), "--json"],
                     env=env)
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["counts"]["communities"] == 5
    assert json.loads(out.stdout)["repairs"][0]["kind"] == "carried"
    out = cli.invoke(main, ["import", "graphrag", str(tmp_path / "in")], env=env)
    assert out.exit_code == 0 and "GraphRAG 2.x" in out.output, out.output
    assert "repaired (carried): 1 communities without children" in out.output
    out = cli.invoke(main, ["import", "graphrag", str(tmp_path)], env=env)
    assert out.exit_code == 1 and "no GraphRAG output" in out.output
    out = cli.invoke(main, ["export", str(tmp_path / "exp")], env=env)
    assert out.exit_code == 0 and (tmp_path / "exp" / "community_reports.parquet").exists()
    out = cli.invoke(main, ["browse"], env=env)
    assert out.exit_code == 0, out.output
    assert "explore/community.cypher" in out.output and ":param community" in out.output
    if not settings.neo4j.uri:
        assert f"http://127.0.0.1:{settings.neo4j.http_port}/browser/" in out.output
        assert settings.password_file.read_text().strip() in out.output

