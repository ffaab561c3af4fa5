import pytest

from neo4j_retag.index.communities import Community


def _graph(graph, edges, isolated=()):
    keys = sorted({k for e in edges for k in e[:2]} | set(isolated))
    graph.driver.execute_query("UNWIND $keys AS k CREATE (:Entity {key: k, name: k})", keys=keys)
    graph.driver.execute_query(
        "UNWIND $edges AS e MATCH (a:Entity {key: e[0]}), (b:Entity {key: e[1]}) "
        "CREATE (a)-[:RELATED {weight: 1.0}]->(b)", edges=[list(e) for e in edges])


def _clusters(graph, settings):
    from neo4j_retag.index.communities import Clusterer
    c = Clusterer(graph, settings)
    return c.write(c.hierarchy())


@pytest.mark.integration
def test_oversized_leaves_split_and_edge_cases(graph, settings):
    # two 6-cliques joined by one edge, plus an isolated node and a separate pair
    a = [f"a{i}" for i in range(6)]
    b = [f"b{i}" for i in range(6)]
    edges = [(x, y) for grp in (a, b) for i, x in enumerate(grp) for y in grp[i + 1:]]
    edges += [("a0", "b0"), ("p", "q")]
    comms = _clusters(graph, settings.model_copy(update={"max_cluster_size": 4}))
    assert comms == []  # no entities yet: nothing to do
    _graph(graph, edges, isolated=["lonely"])
    comms = _clusters(graph, settings.model_copy(update={"max_cluster_size": 4}))
    deepest = max(c.level for c in comms)
    everyone = sorted(a + b + ["p", "q", "lonely"])
    for level in range(deepest + 1):
        assert sorted(k for c in comms if c.level == level for k in c.members) == everyone
    leaves = [c for c in comms if not c.children]
    # a clique has no finer structure: Leiden keeps it whole even above max_cluster_size
    assert sorted(len(c.members) for c in leaves) == [1, 2, 6, 6]
    assert any(c.members == ["lonely"] for c in leaves)


@pytest.mark.integration
def test_split_runs_leiden_on_the_oversized_community(graph, settings):
    from neo4j_retag.index.communities import Clusterer
    tri = [("a", "b"), ("b", "c"), ("a", "c"), ("x", "y"), ("y", "z"), ("x", "z"), ("c", "x")]
    _graph(graph, tri)
    clusterer = Clusterer(graph, settings.model_copy(update={"max_cluster_size": 3}))
    big = Community(0, ["a", "b", "c", "x", "y", "z"])
    clusterer.split(big)
    assert sorted(c.members for c in big.children) == [["a", "b", "c"], ["x", "y", "z"]]
    assert all(c.level == 1 for c in big.children)


@pytest.mark.integration
def test_zero_edges_and_single_node(graph, settings):
    _graph(graph, [], isolated=["x"])
    comms = _clusters(graph, settings)
    assert [c.members for c in comms] == [["x"]]


@pytest.mark.integration
def test_oversized_leaves_split_together_in_one_projection(graph, settings):
    """Two leaves split in one round (one projection, a label each): each by its own subgraph;
    a leaf with no relationship inside falls apart into single entities."""
    from neo4j_retag.index.communities import Clusterer
    tri = [("a", "b"), ("b", "c"), ("a", "c"), ("x", "y"), ("y", "z"), ("x", "z"), ("c", "x")]
    pairs = [("p1", "p2"), ("p2", "p3"), ("q1", "q2"), ("q2", "q3"), ("p1", "i1")]
    _graph(graph, tri + pairs, isolated=["i2", "i3", "i4"])
    clusterer = Clusterer(graph, settings.model_copy(update={"max_cluster_size": 3}))
    big = Community(0, ["a", "b", "c", "x", "y", "z"])
    chains = Community(0, ["p1", "p2", "p3", "q1", "q2", "q3"])  # p1-i1 crosses out of it
    lonely = Community(0, ["i1", "i2", "i3", "i4"])
    clusterer.split(big, chains, lonely)
    assert sorted(c.members for c in big.children) == [["a", "b", "c"], ["x", "y", "z"]]
    assert sorted(c.members for c in chains.children) == [["p1", "p2", "p3"], ["q1", "q2", "q3"]]
    assert sorted(c.members for c in lonely.children) == [["i1"], ["i2"], ["i3"], ["i4"]]
