"""Vectors at query time for local search, DRIFT and rag: the nodes nearest a
question's vector (the vector indexes, ``db/vectors.py``; the vector made and checked by
``query.embedding.embed_question``, the one check of it).
"""

from __future__ import annotations

from ..db import Graph, Record
from ..db import vectors as db_vectors
from ..llm.embeddings import Vector
from ..model import GENERAL, ReportRow
from .retrieval import retrieve_vector


def nearest_entities(graph: Graph, vector: Vector, k: int) -> list[Record]:
    """The ``k`` entities whose description vectors are nearest ``vector``: [{key, score}]
    (``vector`` checked by ``embedding.embed_question``)."""
    return [{"key": r["id"], "score": r["score"]} for r in graph.run(
        "query/nearest_nodes", index=db_vectors.INDEXES["Entity"], k=k, vector=vector)]


def nearest_reports(graph: Graph, vector: Vector, level: int, k: int) -> list[ReportRow]:
    """The ``k`` community reports of the general scope at ``level`` nearest ``vector``."""
    return retrieve_vector(graph, GENERAL, level, vector, k)


def nearest_text_unit_ids(graph: Graph, vector: Vector, k: int) -> list[str]:
    """The ids of the ``k`` text units nearest ``vector``, nearest first (no text read)."""
    return [r["id"] for r in graph.run("query/nearest_nodes", index=db_vectors.INDEXES["Chunk"],
                                       k=k, vector=vector)]


def nearest_text_units(graph: Graph, vector: Vector, k: int) -> list[Record]:
    """The ``k`` text units nearest ``vector``, as ``query/search_text_units`` gives them
    (text_unit_id, text, title, score)."""
    hits = graph.run("query/nearest_nodes", index=db_vectors.INDEXES["Chunk"], k=k,
                     vector=vector)
    rows = {r["id"]: r for r in graph.run("query/lazy_texts", ids=[h["id"] for h in hits])}
    return [{"text_unit_id": h["id"], "text": rows[h["id"]]["text"],
             "title": rows[h["id"]]["title"], "score": h["score"]}
            for h in hits if h["id"] in rows]
