"""Import of REAL Microsoft GraphRAG output: 3.3 (tests/data/graphrag-output-3x, made by
GraphRAG's own indexer on examples/sample-corpus with the fake LLM; see the README there), and
GraphRAG's own index of "A Christmas Carol" (../shared/indexes/christmas-carol-graphrag, see its
SOURCE.md; skipped when absent unless RETAG_TEST_REQUIRE=1)."""

import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from neo4j_retag.interop.graphrag.importer import import_graphrag
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query.global_search import ask_global

pytestmark = pytest.mark.integration

OUT = Path(__file__).resolve().parents[2] / "data" / "graphrag-output-3x"
SHARED = Path(os.environ.get("RETAG_SHARED_DIR", Path(__file__).resolve().parents[3].parent
                             / "shared"))
CAROL = SHARED / "indexes" / "christmas-carol-graphrag"


def rows(name: str) -> list[dict]:
    return pq.read_table(OUT / f"{name}.parquet").to_pylist()


def test_real_graphrag_3x_output_imports_and_answers(settings, graph, double):
    t = {name: rows(name) for name in ("documents", "text_units", "entities", "relationships",
                                       "communities", "community_reports", "covariates")}
    report = import_graphrag(graph, settings, OUT)
    assert report.layout == "graphrag" and not report.missing_optional
    assert not report.warnings, report.warnings
    # GraphRAG clustered its largest connected component only: the 14 other entities get
    # communities of their own (ids above GraphRAG's), so level 0 covers all 28 entities
    made = len(t["entities"]) - len({e for c in t["communities"] for e in c["entity_ids"]})
    assert made == 14
    assert [(r.kind, r.count) for r in report.repairs] == [("unclustered", made)]
    assert report.levels == [{"level": 0, "communities": len(t["communities"]) + made,
                              "reports": len(t["community_reports"]) + made,
                              "memberships": len(t["entities"])}]
    assert {f.file: f.rows for f in report.files} == {f"{k}.parquet": len(v) for k, v in t.items()}
    assert {k: report.counts[k] for k in ("documents", "text_units", "entities", "relationships",
                                          "communities", "community_reports", "claims")} == {
        "documents": len(t["documents"]), "text_units": len(t["text_units"]),
        "entities": len(t["entities"]), "relationships": len(t["relationships"]),
        "communities": len(t["communities"]) + made,
        "community_reports": len(t["community_reports"]) + made,
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
        "c.title AS title, c.graphrag_repair AS repair").records
    assert {r["id"] for r in stored if r["repair"] is None} == ids
    singles = {r["id"] for r in stored if r["repair"] == "unclustered"}
    assert len(singles) == made and min(singles) > max(ids)
    assert all(r["status"] == "ok" for r in stored)
    graphrag_ids = {r["g"] for r in graph.driver.execute_query(
        "MATCH (e:Entity) RETURN e.graphrag_id AS g").records}
    assert graphrag_ids == {e["id"] for e in t["entities"]}

    level0 = {r["community"] for r in t["community_reports"] if r["level"] == 0}
    assert level0
    a = run(settings, lambda llm: ask_global(graph, llm, settings,
            Query(question="What are the main themes?", level=0)))
    assert a.citations and a.trace.points_kept > 0
    assert {c.id for c in a.citations} <= level0 | singles
    titles = {r["community"]: r["title"] for r in t["community_reports"]}
    assert all(c.title == titles[c.id] for c in a.citations if c.id in titles)


def test_real_christmas_carol_index_imports_with_the_repairs_it_needs(settings, graph):
    from tests.conftest import _missing
    if not (CAROL / "communities.parquet").exists():
        _missing(f"{CAROL} is absent (set RETAG_SHARED_DIR to the shared folder)")
    comms = pq.read_table(CAROL / "communities.parquet").to_pylist()
    ents = pq.read_table(CAROL / "entities.parquet").to_pylist()
    report = import_graphrag(graph, settings, CAROL)
    # the folder is sound (no defect), shaped as GraphRAG makes it: 25 entities outside its
    # largest connected component, and 96 communities without children above level 3
    repairs = {r.kind: r for r in report.repairs}
    assert list(repairs) == ["unclustered", "carried"]
    assert not any(r.defect for r in report.repairs)
    clustered = {e for c in comms for e in c["entity_ids"]}
    assert repairs["unclustered"].count == len(ents) - len(clustered) == 25
    childless = [c for c in comms if not c["children"] and c["level"] < 3]
    assert len(childless) == 96  # and the 25 new level-0 communities are childless too
    assert repairs["carried"].message.startswith(f"{len(childless) + 25} communities without")
    assert repairs["carried"].communities == sorted(c["community"] for c in childless)[:10]
    # every level covers the 529 entities of GraphRAG's entities table, each once
    assert [lv["memberships"] for lv in report.levels] == [len(ents)] * 4
    assert all(lv["reports"] == lv["communities"] for lv in report.levels)
    assert graph.driver.execute_query(
        "MATCH (e:Entity) WHERE e.graphrag_id IS NOT NULL WITH e, COUNT { (e)-[:IN_COMMUNITY]->"
        "(:Community {level: 2}) } AS n WHERE n <> 1 RETURN count(e) AS bad").records[0][0] == 0


def test_dynamic_selection_on_the_carol_index_rates_each_report_once(settings, graph, double):
    """The import carries childless communities down as copies of their reports; dynamic
    community selection rates each distinct report once, as on GraphRAG's own hierarchy."""
    import asyncio
    import json

    from neo4j_retag.llm import LLM, Usage
    from neo4j_retag.model import Trace
    from neo4j_retag.query.dynamic import select_reports
    from tests.conftest import _missing
    if not (CAROL / "communities.parquet").exists():
        _missing(f"{CAROL} is absent (set RETAG_SHARED_DIR to the shared folder)")
    import_graphrag(graph, settings, CAROL)
    double.script["rate"] = lambda b: json.dumps({"rating": 4, "reason": "scripted"})
    trace = Trace()

    async def go():
        async with LLM(settings, Usage()) as llm:
            return await select_reports(graph, llm, settings, "What are the themes?", trace)
    reports, ratings = asyncio.run(go())

    def ids(where: str) -> set[int]:
        return {r[0] for r in graph.driver.execute_query(
            f"MATCH (c:Community {{scope: 'general'}}) WHERE c.report_status = 'ok' {where} "
            "RETURN c.id").records}
    copies, originals = ids("AND c.carried"), ids("AND NOT coalesce(c.carried, false)")
    assert len(copies) == 247 and len(originals) == 147
    sel = trace.selection
    assert set(ratings) == copies | originals  # every report of the walk has its rating
    assert sel.cost.calls == len(originals) == sum(k == "rate" for k, _ in double.calls)
    assert sel.reused == len(copies)
    # all relevant: the deepest original of each branch, never a copy standing for it
    assert {r.id for r in reports} <= originals and len(reports) == sel.relevant == 123
