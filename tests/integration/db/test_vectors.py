"""Vector indexes on real Neo4j (issue 19): made with the model's dimension, nearest-node
queries, and a model or dimension change refused in one line (never mixed vectors)."""

import pytest

from neo4j_retag.db import vectors
from neo4j_retag.errors import ConfigError

pytestmark = pytest.mark.integration


def _put(graph, label, key, rows):
    prop = "key" if label == "Entity" else "id"
    graph.driver.execute_query(
        f"UNWIND $rows AS r MERGE (n:{label} {{{prop}: r.id}}) SET n.embedding = r.v, "
        "n.scope = 'general', n.level = 0, n.report_status = 'ok', n.title = r.id",
        rows=[{"id": i, "v": v} for i, v in rows])


def test_indexes_are_made_with_the_dimension_and_find_the_nearest(graph):
    vectors.ensure(graph, "m1", 3)
    st = vectors.state(graph)
    assert {i["name"]: i["dimensions"] for i in st["indexes"]} == {
        "chunk_embedding": 3, "entity_embedding": 3, "community_embedding": 3}
    assert all(i["state"] == "ONLINE" for i in st["indexes"])
    assert (st["model"], st["dimensions"]) == ("m1", 3)
    _put(graph, "Chunk", "id", [("a", [1.0, 0.0, 0.0]), ("b", [0.0, 1.0, 0.0]),
                                ("c", [0.7, 0.7, 0.0])])
    _put(graph, "Entity", "key", [("E1", [0.0, 0.0, 1.0]), ("E2", [1.0, 0.1, 0.0])])
    graph.run("db/await_indexes")
    near = vectors.nearest(graph, "Chunk", [0.9, 0.1, 0.0], 2)
    assert [r["id"] for r in near] == ["a", "c"] and near[0]["score"] > near[1]["score"]
    assert [r["id"] for r in vectors.nearest(graph, "Entity", [0, 0, 1.0], 1)] == ["E1"]
    # idempotent: the same model and dimension change nothing
    vectors.ensure(graph, "m1", 3)
    assert vectors.stored(vectors.state(graph)) == 5


def test_another_dimension_or_model_is_a_one_line_error_naming_the_fix(graph):
    vectors.ensure(graph, "m1", 3)
    _put(graph, "Chunk", "id", [("a", [1.0, 0.0, 0.0])])
    for model, dims in (("m1", 4), ("m2", 3)):
        with pytest.raises(ConfigError) as err:
            vectors.ensure(graph, model, dims)
        line = str(err.value)
        assert "\n" not in line and "--reembed" in line and "EMBEDDING_MODEL" in line
        assert "made by m1 (3 dimensions)" in line
    with pytest.raises(ConfigError, match="3 dimensions"):
        vectors.nearest(graph, "Chunk", [1.0, 0.0, 0.0, 0.0], 1)
    # nothing changed: the old vectors and indexes are still there
    st = vectors.state(graph)
    assert st["model"] == "m1" and {i["dimensions"] for i in st["indexes"]} == {3}
    # dropping them lets another model in, with indexes of its dimension
    vectors.drop(graph)
    vectors.ensure(graph, "m2", 4)
    st = vectors.state(graph)
    assert (st["model"], st["dimensions"], vectors.stored(st)) == ("m2", 4, 0)
    assert {i["dimensions"] for i in st["indexes"]} == {4}


def test_indexes_without_vectors_follow_a_new_dimension(graph):
    vectors.ensure(graph, "m1", 3)
    vectors.ensure(graph, "m1", 5)  # nothing stored yet: no mixing possible
    assert {i["dimensions"] for i in vectors.state(graph)["indexes"]} == {5}
