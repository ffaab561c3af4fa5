"""Import of a REAL Microsoft GraphRAG 3.3 output (tests/data/graphrag-output-3x, made by
GraphRAG's own indexer on examples/sample-corpus with the fake LLM; see the README there)."""

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from neo4j_retag.interop.graphrag.importer import import_graphrag
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query.global_search import ask_global

pytestmark = pytest.mark.integration

OUT = Path(__file__).resolve().parents[2] / "data" / "graphrag-output-3x"


def rows(name: str) -> list[dict]:
    return pq.read_table(OUT / f"{name}.parquet").to_pylist()


def test_real_graphrag_3x_output_imports_and_answers(settings, graph, double):
    t = {name: rows(name) for name in ("documents", "text_units", "entities", "relationships",
                                       "communities", "community_reports", "covariates")}
    report = import_graphrag(graph, settings, OUT)
    assert report.layout == "graphrag" and not report.missing_optional
    assert {f.file: f.rows for f in report.files} == {f"{k}.parquet": len(v) for k, v in t.items()}
    assert {k: report.counts[k] for k in ("documents", "text_units", "entities", "relationships",
                                          "communities", "community_reports", "claims")} == {
        "documents": len(t["documents"]), "text_units": len(t["text_units"]),
        "entities": len(t["entities"]), "relationships": len(t["relationships"]),
        "communities": len(t["communities"]), "community_reports": len(t["community_reports"]),
        "claims": len(t["covariates"])}

    def one(cypher: str) -> int:
        return graph.driver.execute_query(cypher).records[0][0]

    assert one("MATCH (n:Document) RETURN count(n)") == len(t["documents"])
    assert one("MATCH (n:Chunk) RETURN count(n)") == len(t["text_units"])
    assert one("MATCH (n:Entity) RETURN count(n)") == len(t["entities"])
    assert one("MATCH (:Entity)-[r:RELATED]->(:Entity) RETURN count(r)") == len(t["relationships"])
    assert one("MATCH (n:Claim) RETURN count(n)") == len(t["covariates"])
    assert one("MATCH (:Chunk)-[r:MENTIONS]->(:Entity) RETURN count(r)") == sum(
        len(e["text_unit_ids"]) for e in t["entities"])
    ids = {r["community"] for r in t["communities"]}
    stored = graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general'}) RETURN c.id AS id, c.report_status AS status, "
        "c.title AS title").records
    assert {r["id"] for r in stored} == ids
    assert all(r["status"] == "ok" for r in stored)
    graphrag_ids = {r["g"] for r in graph.driver.execute_query(
        "MATCH (e:Entity) RETURN e.graphrag_id AS g").records}
    assert graphrag_ids == {e["id"] for e in t["entities"]}

    level0 = {r["community"] for r in t["community_reports"] if r["level"] == 0}
    assert level0
    a = run(settings, lambda llm: ask_global(graph, llm, settings,
            Query(question="What are the main themes?", level=0)))
    assert a.citations and a.trace.points_kept > 0
    assert {c.id for c in a.citations} <= level0
    titles = {r["community"]: r["title"] for r in t["community_reports"]}
    assert all(c.title == titles[c.id] for c in a.citations)
