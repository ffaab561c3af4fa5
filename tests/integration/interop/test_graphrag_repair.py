"""A broken GraphRAG 2.x folder imported into the real Neo4j: the hierarchy is repaired as our
ingest builds one, global search at every level reaches every branch, the dummy row never."""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from neo4j_retag.errors import InputError
from neo4j_retag.interop.graphrag.importer import import_graphrag
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query.global_search import ask_global
from tests.conftest import neo4j_vars
from tests.graphrag_fixture import write_broken_fixture, write_uncovered_fixture
from tests.integration.interop.test_graphrag import snapshot

pytestmark = pytest.mark.integration


def _mapped(double) -> tuple[set[int], str]:
    """Report ids in the map prompts so far, and the prompts' text."""
    prompts = [body["messages"][-1]["content"] for kind, body in double.calls if kind == "map"]
    ids = {int(i) for p in prompts for i in re.findall(r"^(\d+),", p, re.M)}
    return ids, "\n".join(prompts)


def test_broken_hierarchy_is_repaired_and_global_search_misses_no_branch(settings, graph,
                                                                         double, tmp_path):
    folder = write_broken_fixture(tmp_path / "broken")
    report = import_graphrag(graph, settings, folder)
    assert [r.kind for r in report.repairs] == ["dummy", "nesting", "duplicate", "unclustered",
                                                "carried"]
    assert not report.warnings, report.warnings
    # every level covers the 8 entities exactly once, and every community has its report
    assert report.levels == [
        {"level": 0, "communities": 4, "reports": 4, "memberships": 8},
        {"level": 1, "communities": 5, "reports": 5, "memberships": 8},
        {"level": 2, "communities": 6, "reports": 6, "memberships": 8}]
    q = graph.driver.execute_query
    assert q("MATCH (e:Entity) WITH e, COUNT { (e)-[:IN_COMMUNITY]->(:Community {level: 1}) } "
             "AS n WHERE n <> 1 RETURN count(e) AS bad").records[0]["bad"] == 0
    assert q("MATCH (c:Community) WHERE c.id < 0 OR c.title = 'Dummy community' "
             "RETURN count(c) AS n").records[0]["n"] == 0
    assert q("MATCH (p:Community)-[:PARENT_OF]->(c:Community)<-[:IN_COMMUNITY]-(e:Entity) "
             "WHERE NOT (e)-[:IN_COMMUNITY]->(p) RETURN count(*) AS n").records[0]["n"] == 0
    carried = {r["id"]: (r["level"], r["from"]) for r in q(
        "MATCH (c:Community {carried: true}) RETURN c.id AS id, c.level AS level, "
        "c.carried_from AS from").records}
    assert carried == {8: (1, 1), 9: (2, 1), 10: (1, 6), 11: (2, 6), 12: (1, 7), 13: (2, 7),
                       14: (2, 3)}

    # level 1: the childless Cratchit branch (carried copy 8) reaches map-reduce
    a = run(settings, lambda llm: ask_global(graph, llm, settings,
            Query(question="What are the themes?", level=1)))
    ids, text = _mapped(double)
    assert ids == {2, 3, 8, 10, 12}, ids
    assert "The Cratchit family" in text and "Dummy community" not in text
    assert a.citations and {c.id for c in a.citations} <= ids
    # level 2: Fezziwig's London (childless at level 1) is there through its copy 14
    double.calls.clear()
    run(settings, lambda llm: ask_global(graph, llm, settings,
        Query(question="What are the themes?", level=2)))
    ids, text = _mapped(double)
    assert ids == {4, 5, 9, 11, 13, 14}, ids
    assert "Fezziwig's London" in text and "Dummy community" not in text

    # a second import of the same folder changes nothing
    before = snapshot(graph)
    import_graphrag(graph, settings, folder)
    assert snapshot(graph) == before
    # without BELLE the repair would give GHOST's community id 6 to another thing: refused
    ents = [e for e in pq.read_table(folder / "entities.parquet").to_pylist()
            if e["title"] != "BELLE"]
    pq.write_table(pa.Table.from_pylist(ents), folder / "entities.parquet")
    with pytest.raises(InputError, match=r"already used.*\[6, 7, 8, 9, 10"):
        import_graphrag(graph, settings, folder)
    assert snapshot(graph) == before


def test_cli_prints_every_repair(settings, graph, tmp_path):
    from neo4j_retag.cli import main
    env = neo4j_vars(settings)
    folder = write_broken_fixture(tmp_path / "broken")
    out = CliRunner().invoke(main, ["import", "graphrag", str(folder)], env=env)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    for kind in ("dummy", "nesting", "duplicate", "unclustered", "carried"):
        assert f"repaired ({kind}):" in text, text
    assert "dropped 1 community row(s) and 1 report(s) numbered -1" in text
    out = CliRunner().invoke(main, ["import", "graphrag", str(folder), "--json"], env=env)
    assert out.exit_code == 0
    assert {r["kind"]: r["defect"] for r in json.loads(out.stdout)["repairs"]} == {
        "dummy": True, "nesting": True, "duplicate": True, "unclustered": False,
        "carried": False}


def test_members_no_child_holds_and_a_report_at_another_level(settings, graph, tmp_path):
    """Two members of community 0 in none of its children get level-1 communities (every
    level covers the 6 entities), and a report whose level is not its community's is said."""
    from neo4j_retag.cli import main
    folder = write_uncovered_fixture(tmp_path / "uncovered")
    out = CliRunner().invoke(main, ["import", "graphrag", str(folder)],
                             env=neo4j_vars(settings))
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert "repaired (uncovered): 2 members of a community were in none of its children" in text
    assert "warning: 1 community reports give another level than the communities table" in text
    levels = graph.run("interop/import_summary")
    assert [(lv["level"], lv["memberships"], lv["reports"]) for lv in levels] == [
        (0, 6, 2), (1, 6, 4)]
    q = graph.driver.execute_query
    assert q("MATCH (:Community {id: 0})-[:PARENT_OF]->(c:Community {graphrag_repair: "
             "'uncovered'})<-[:IN_COMMUNITY]-(e:Entity) RETURN collect(e.key) AS keys"
             ).records[0]["keys"] in (["fezziwig", "london"], ["london", "fezziwig"])
