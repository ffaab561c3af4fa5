"""Each report paid once (issue 18): reuse across levels, scopes and runs, with the LLM cache
off, on a planted hierarchy in real Neo4j; tiny communities composed without a call."""

import pytest

from neo4j_retag.index.communities import Clusterer, Community
from neo4j_retag.index.reports import build_reports
from neo4j_retag.llm import Usage, run_with_llm

A = [f"a{i}" for i in range(5)]
B = [f"b{i}" for i in range(5)]


def _plant(graph):
    keys = A + B + ["p0", "p1", "s0"]
    graph.driver.execute_query(
        "UNWIND $keys AS k CREATE (:Entity {key: k, name: toUpper(k), "
        "description: 'Entity ' + k + ' of the planted graph.'})", keys=keys)
    edges = [(x, y) for grp in (A, B) for i, x in enumerate(grp) for y in grp[i + 1:]]
    edges += [("a0", "b0"), ("p0", "p1")]
    graph.driver.execute_query(
        "UNWIND $edges AS e MATCH (a:Entity {key: e[0]}), (b:Entity {key: e[1]}) "
        "CREATE (a)-[:RELATED {weight: 1.0, description: e[0] + ' works with ' + e[1]}]->(b)",
        edges=[list(e) for e in edges])
    graph.run_batched("index/set_degrees")


def _hierarchy():
    """L0: A+B, P, S; L1: A, B, P (carried), S (carried); L2: A (not split), B, P, S."""
    def chain(members, levels, carried_from=1):
        root = node = Community(0, list(members))
        for lv in range(1, levels):
            child = Community(lv, list(members), carried=lv >= carried_from)
            node.children = [child]
            node = child
        return root
    ab = Community(0, sorted(A + B), children=[chain(A, 2), chain(B, 2)])
    for c in ab.children:
        c.level, c.children[0].level = 1, 2
        c.children[0].carried = False
    return [ab, chain(["p0", "p1"], 3), chain(["s0"], 3)]


def _reports(settings, graph, scope, double):
    before = double.count("report")
    out = run_with_llm(settings, lambda llm: build_reports(graph, llm, settings, scope),
                       Usage())
    return out, double.count("report") - before


def _ids(graph, scope="general"):
    return {(r["level"], r["membership"]): r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community {scope: $s}) RETURN c.level AS level, c.membership AS membership, "
        "c.id AS id", s=scope).records}


@pytest.mark.integration
def test_reports_paid_once_across_levels_scopes_and_runs(settings, graph, double):
    settings = settings.model_copy(update={"llm_cache": False, "report_compose_max_entities": 3})
    _plant(graph)
    clusterer = Clusterer(graph, settings)
    clusterer.write(_hierarchy())
    # 11 communities, 5 distinct memberships: A+B, A and B need an LLM report (3 calls; A and
    # B again at level 2 reuse them), the pair and the single entity are composed at each level
    done, calls = _reports(settings, graph, "general", double)
    assert calls == 3
    assert done.model_dump(exclude={"failures", "invalid_citations", "left_out"}) == {
        "ok": 3, "failed": 0, "reused": 2, "composed": 6, "waiting": 0,
        "unsupported_findings": 0, "titled": 0, "titles_refused": 0}
    rows = graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general'}) RETURN c.level AS level, c.size AS size, "
        "c.report_source AS source, c.reused_from AS reused_from, c.report_status AS status, "
        "c.membership AS membership ORDER BY level, size").records
    assert all(r["status"] == "ok" and r["membership"] for r in rows)
    assert {r["source"] for r in rows if r["size"] <= 2} == {"composed"}
    a_reports = [r for r in rows if r["size"] == 5]
    assert sum(r["reused_from"] is not None for r in a_reports) == 2  # A and B at level 2
    # a topic scope repeating community A reuses its report: no call
    graph.driver.execute_query("MATCH (e:Entity) WHERE e.key IN $a SET e:Topic0", a=A)
    clusterer.write([Community(0, list(A))], "Topic0")
    done, calls = _reports(settings, graph, "Topic0", double)
    assert calls == 0 and done.reused == 1
    # the next run (same graph, hierarchy rebuilt): the same ids, every report kept, no call
    ids = _ids(graph)
    clusterer.write(_hierarchy())
    assert _ids(graph) == ids
    done, calls = _reports(settings, graph, "general", double)
    assert calls == 0 and done.reused == 5 and done.composed == 6
    assert not graph.driver.execute_query(
        "MATCH (a:ReportArchive {scope: 'general'}) RETURN a").records  # pruned once reported
    # one description of B changes: B and A+B are paid again, A keeps its report
    graph.driver.execute_query("MATCH (e:Entity {key: 'b1'}) SET e.description = 'New.'")
    clusterer.write(_hierarchy())
    assert _ids(graph) == ids
    done, calls = _reports(settings, graph, "general", double)
    assert calls == 2 and done.ok == 2


@pytest.mark.integration
def test_new_community_ids_never_reuse_an_old_id(settings, graph, double):
    settings = settings.model_copy(update={"llm_cache": False, "report_compose_max_entities": 3})
    _plant(graph)
    clusterer = Clusterer(graph, settings)
    first = {c.id for c in clusterer.write(_hierarchy())}
    run_with_llm(settings, lambda llm: build_reports(graph, llm, settings, "general"), Usage())
    # another partition: communities with other members get ids above every earlier one
    second = clusterer.write([Community(0, sorted(A + B + ["p0", "p1", "s0"]))])
    assert second[0].id > max(first)
