"""Vectors in the graph: the ``embedding`` property of text units (:Chunk), entities
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


def mismatch(st: Record, model: str, dimensions: int | None) -> str | None:
    """The one line saying why vectors of ``model`` / ``dimensions`` (None: not known yet,
    the model alone is compared) cannot join or be compared with the stored ones, or None when
    they can (same model and dimension, or nothing stored yet)."""
    if not stored(st) or st["model"] is None:
        return None
    if st["model"] == model and dimensions in (None, st["dimensions"]):
        return None
    made = f"the graph's vectors were made by {st['model']} ({st['dimensions']} dimensions)"
    back = f"set EMBEDDING_MODEL / EMBEDDING_DIMENSIONS back, or run {REEMBED}"
    if st["model"] == model:  # the same model, shortened otherwise (EMBEDDING_DIMENSIONS)
        return (f"{made} but it gives {dimensions} now (EMBEDDING_DIMENSIONS): vectors of "
                f"two lengths cannot be compared; {back}")
    gives = f" ({dimensions} dimensions)" if dimensions else ""
    return (f"{made} but EMBEDDING_MODEL is {model}{gives}: vectors of two models cannot "
            f"be compared; {back}")


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
    st = state(graph)
    check_query(st, vector, st["model"])
    return graph.run("query/nearest_nodes", index=INDEXES[label], k=k, vector=vector)


def check_query(st: Record, vector: list[float], model: str) -> None:
    """Raise ConfigError when a query ``vector`` made by ``model`` cannot be compared with
    the stored vectors: none stored, another model or dimension, or a vector with no
    direction (all zeros, NaN: cosine similarity is undefined for it)."""
    if not stored(st) or st["dimensions"] is None:
        raise ConfigError("the graph has no embeddings: run `neo4j-retag ingest` with "
                          "EMBEDDINGS=true (the default) to embed it")
    if (why := mismatch(st, model, len(vector))) is not None:
        raise ConfigError(why)
    if not any(x for x in vector) or any(x != x for x in vector):
        raise ConfigError(f"the embedding endpoint gave {model} a vector of zeros or NaN for "
                          "the question: it cannot be compared; check EMBEDDING_MODEL")


def available(st: Record, label: str = "Community") -> bool:
    """True when nodes of ``label`` hold vectors (retrieval can use them)."""
    key: dict[str, Any] = {"Chunk": "chunks", "Entity": "entities", "Community": "communities"}
    return bool(st[key[label]])
