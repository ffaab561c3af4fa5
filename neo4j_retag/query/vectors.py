"""Vectors at query time for local search, DRIFT and rag (issue 19): questions embedded (the
embedding client, ``llm/embeddings.py``, counted in the question's usage) and the nodes nearest
them (the vector indexes, ``db/vectors.py``); reciprocal rank fusion of ranked records.

Where vectors only help (local search's seeding, DRIFT's primer), every way embeddings can be
missing - EMBEDDINGS=false, an index built without them, the embedding call failing - is a
fallback the caller takes (string match, BM25), said once in a trace note and the log; a failed
call is also a `model.Failure`. Where the user asked for them (`rag --retrieval vector`), it is
an error, as for RETRIEVAL=vector. Vectors of another model or dimension than the stored ones
stop the question with the one-line ConfigError that names the fix (never compared).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from ..config import Settings
from ..db import Graph, Record
from ..db import vectors as db_vectors
from ..errors import ConfigError, LLMError
from ..llm import LLM
from ..llm.embeddings import Embedder, Vector
from ..model import GENERAL, Failure, ReportRow, Trace
from .common import note_once
from .retrieval import retrieve_vector, rrf_scores

What = Literal["entities", "reports", "text_units"]
LABELS: dict[str, str] = {"entities": "Entity", "reports": "Community", "text_units": "Chunk"}


def has_embeddings(graph: Graph, what: What) -> bool:
    """True when nodes of ``what`` hold vectors."""
    return db_vectors.available(db_vectors.state(graph), LABELS[what])


async def embed_or_note(graph: Graph, llm: LLM, settings: Settings, texts: Sequence[str],
                        trace: Trace, what: What = "entities", *,
                        required: bool = False) -> list[Vector] | None:
    """The vectors of ``texts`` (one call, stage ``embed_query``), or None with a note when
    there is nothing to compare them with (EMBEDDINGS=false, no ``what`` embedded) or the call
    failed. Raises ConfigError when the vectors cannot be compared with the stored ones, and
    when ``required`` (the user asked for vectors) instead of any fallback (LLMError for a
    failed call)."""
    st = db_vectors.state(graph) if settings.embedding.enabled else None
    if st is None or not db_vectors.available(st, LABELS[what]):
        why = ("embeddings are off (EMBEDDINGS=false)" if st is None else
               f"the graph has no embeddings of its {what.replace('_', ' ')} (run `neo4j-retag "
               "ingest` with EMBEDDINGS=true, the default)")
        if required:
            raise ConfigError(f"vector retrieval needs embeddings: {why}")
        note_once(trace, f"{why}: no vector search", logging.WARNING)
        return None
    try:
        got = await Embedder.of(llm).embed(list(texts))
    except LLMError as err:
        if required:
            raise
        note_once(trace, f"embedding the question failed ({err.reason}): no vector search",
                  logging.WARNING)
        trace.failures.append(Failure.of("embed question", err))
        return None
    db_vectors.check_query(st, len(got[0]), settings.embedding.model)
    return got


def nearest_entities(graph: Graph, vector: Vector, k: int) -> list[Record]:
    """The ``k`` entities whose description vectors are nearest ``vector``: [{key, score}]
    (``vector`` checked by :func:`embed_or_note`)."""
    return [{"key": r["id"], "score": r["score"]} for r in graph.run(
        "query/nearest_nodes", index=db_vectors.INDEXES["Entity"], k=k, vector=vector)]


def nearest_reports(graph: Graph, vector: Vector, level: int, k: int) -> list[ReportRow]:
    """The ``k`` community reports of the general scope at ``level`` nearest ``vector``."""
    return retrieve_vector(graph, GENERAL, level, vector, k)


def nearest_text_units(graph: Graph, vector: Vector, k: int) -> list[Record]:
    """The ``k`` text units nearest ``vector``, as ``query/search_text_units`` gives them
    (text_unit_id, text, title, score)."""
    hits = graph.run("query/nearest_nodes", index=db_vectors.INDEXES["Chunk"], k=k,
                     vector=vector)
    rows = {r["id"]: r for r in graph.run("query/lazy_texts", ids=[h["id"] for h in hits])}
    return [{"text_unit_id": h["id"], "text": rows[h["id"]]["text"],
             "title": rows[h["id"]]["title"], "score": h["score"]}
            for h in hits if h["id"] in rows]


def fuse_hits(ranked: Sequence[Sequence[Record]], key: str) -> list[Record]:
    """Records fused by reciprocal rank (``retrieval.rrf_scores``), best first; ties keep
    first-seen order. The first list's copy is kept, with the fused ``score``."""
    first: dict[object, Record] = {}
    for hits in ranked:
        for hit in hits:
            first.setdefault(hit[key], hit)
    scores = rrf_scores([hit[key] for hit in hits] for hits in ranked)
    order = sorted(scores, key=lambda i: -scores[i])
    return [{**first[i], "score": round(scores[i], 6)} for i in order]
