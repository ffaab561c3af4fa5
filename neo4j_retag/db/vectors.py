"""Vectors in the graph (issue 19): the ``embedding`` property of text units (:Chunk), entities
(their description) and community reports, one cosine vector index per label, and the
nearest-node queries on them.

The stored vectors are tied to one embedding model and dimension (kept on the ``Meta`` node):
an index is only ever made with that dimension, and a run with another model or dimension
stops with one line naming the fix instead of mixing vectors that cannot be compared.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from . import Graph, Record

# label -> its vector index (cypher/db/vector_indexes.cypher)
INDEXES = {"Chunk": "chunk_embedding", "Entity": "entity_embedding",
           "Community": "community_embedding"}
REEMBED = "`neo4j-retag ingest --reembed` (drops every vector and re-embeds)"


def state(graph: Graph) -> Record:
    """``indexes`` ([{name, state, dimensions}]), the stored vectors' ``model`` and
    ``dimensions`` (None before any), and how many ``chunks``, ``entities`` and
    ``communities`` hold a vector."""
    return {**graph.run("db/vector_state")[0],
            "indexes": graph.run("db/vector_indexes_state")}


def stored(st: Record) -> int:
    """How many nodes hold a vector."""
    return int(st["chunks"] + st["entities"] + st["communities"])


def mismatch(st: Record, model: str, dimensions: int) -> str | None:
    """The one line saying why vectors of ``model`` / ``dimensions`` cannot join the stored
    ones, or None when they can (same model and dimension, or nothing stored yet)."""
    if not stored(st) or st["model"] is None:
        return None
    if st["model"] == model and st["dimensions"] == dimensions:
        return None
    return (f"the graph's vectors are {st['model']}'s ({st['dimensions']} dimensions) but "
            f"EMBEDDING_MODEL {model} gives {dimensions}: set EMBEDDING_MODEL / "
            f"EMBEDDING_DIMENSIONS back, or run {REEMBED}")


def ensure(graph: Graph, model: str, dimensions: int) -> None:
    """The vector indexes for ``dimensions`` and the model recorded, before any vector of
    ``model`` is written. Indexes of another dimension holding no vector are made again.

    Raises ConfigError (see ``mismatch``) when vectors of another model or dimension exist.
    """
    st = state(graph)
    if (why := mismatch(st, model, dimensions)) is not None:
        raise ConfigError(why)
    have = {i["name"]: i for i in st["indexes"]}
    if any(i["dimensions"] != dimensions for i in have.values()) or (
            st["model"] not in (None, model)):
        graph.run_script("db/drop_vectors")  # nothing stored (mismatch said so): start clean
        have = {}
    if set(INDEXES.values()) - set(have):
        graph.run_script("db/vector_indexes", dimensions=dimensions)
        graph.run("db/await_indexes")
    if st["model"] != model or st["dimensions"] != dimensions:
        graph.run("index/set_index_meta", props={"embedding_model": model,
                                                 "embedding_dimensions": dimensions})


def drop(graph: Graph) -> None:
    """Every vector, the vector indexes and the recorded model go."""
    graph.run_script("db/drop_vectors")


def nearest(graph: Graph, label: str, vector: list[float], k: int) -> list[Record]:
    """The ``k`` nodes of ``label`` (Chunk, Entity, Community) nearest to ``vector``, best
    first: [{id (an entity's key), score}]. Raises ConfigError when the graph has no
    vectors, or vectors of another dimension than ``vector``'s."""
    check_query(state(graph), len(vector))
    return graph.run("query/nearest_nodes", index=INDEXES[label], k=k, vector=vector)


def check_query(st: Record, dimensions: int, model: str | None = None) -> None:
    """Raise ConfigError when a query vector of ``dimensions`` (from ``model``) cannot be
    compared with the stored vectors (none stored; another model or dimension)."""
    if not stored(st) or st["dimensions"] is None:
        raise ConfigError("the graph has no embeddings: run `neo4j-retag ingest` with "
                          "EMBEDDINGS=true (the default) to embed it")
    if (why := mismatch(st, model or st["model"], dimensions)) is not None:
        raise ConfigError(why)


def available(st: Record, label: str = "Community") -> bool:
    """True when nodes of ``label`` hold vectors (retrieval can use them)."""
    key: dict[str, Any] = {"Chunk": "chunks", "Entity": "entities", "Community": "communities"}
    return bool(st[key[label]])
