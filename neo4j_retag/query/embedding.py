"""The one place a query method embeds text: a question, a hypothetical answer or
DRIFT's follow-ups, for rag, ReTAG's vector / hybrid retrieval, local search's seeding and
DRIFT's primer alike.

``check_vectors`` runs before any call a method makes (keyword expansion, DRIFT's hypothetical
answer, the embedding itself): when the graph's vectors were made by another model than
EMBEDDING_MODEL (or another EMBEDDING_DIMENSIONS), the question stops with one ConfigError
naming both models and the fix, whatever the dimension - two models' vectors of one length
are as incomparable as vectors of two lengths. ``embed_question`` then checks what came back
(the dimension, a vector with no direction) before any nearest-node query sees it.

Where vectors only help (local search's seeding, DRIFT's primer, RETRIEVAL=auto), embeddings
being off, missing or the call failing is a fallback, said once in a trace note and the log,
a failed call also a ``errors.Failure``; where the user asked for vectors (``required``), an
error.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from ..config import Settings
from ..db import Graph, Record
from ..db import vectors as db_vectors
from ..errors import ConfigError, Failure, LLMError
from ..llm import LLM
from ..llm.embeddings import Embedder, Vector
from ..model import Trace
from ..stages import Stage

What = Literal["entities", "reports", "text_units"]
LABELS: dict[str, str] = {"entities": "Entity", "reports": "Community", "text_units": "Chunk"}


def _note_once(trace: Trace, text: str) -> None:
    if text not in trace.notes:
        trace.note(text, logging.WARNING)


def check_vectors(graph: Graph, settings: Settings) -> Record | None:
    """The stored vectors' state (``db.vectors.state``) when vectors of EMBEDDING_MODEL may be
    compared with them; None when EMBEDDINGS=false. No call is made. Raises ConfigError
    (``db.vectors.mismatch``) when they were made by another model or dimension."""
    if not settings.embedding.enabled:
        return None
    st = db_vectors.state(graph)
    e = settings.embedding
    if (why := db_vectors.mismatch(st, e.model, e.dimensions)) is not None:
        raise ConfigError(why)
    return st


def stored_vectors(graph: Graph, settings: Settings, what: What) -> Record | None:
    """The stored vectors' state when the ``what`` nodes hold vectors a question embedded now
    can be compared with; None when EMBEDDINGS=false or they hold none (a method then finds
    them without vectors, or refuses). No call is made. Raises ConfigError as
    :func:`check_vectors`."""
    st = check_vectors(graph, settings)
    return st if st is not None and db_vectors.available(st, LABELS[what]) else None


async def embed_question(graph: Graph, llm: LLM, settings: Settings, texts: Sequence[str],
                         trace: Trace, what: What = "entities", *,
                         required: bool = False) -> list[Vector] | None:
    """The vectors of ``texts`` (one request, stage ``embed_query``, in ``llm``'s usage), each
    checked against the stored ``what`` vectors; None with a trace note when there is nothing
    to compare them with (EMBEDDINGS=false, no ``what`` embedded) or the call failed.

    Raises ConfigError when the vectors cannot be compared with the stored ones (checked
    before the call, and on the reply), and when ``required`` instead of any fallback
    (LLMError for a failed call).
    """
    st = check_vectors(graph, settings)
    if st is None or not db_vectors.available(st, LABELS[what]):
        why = ("embeddings are off (EMBEDDINGS=false)" if st is None else
               f"the graph has no embeddings of its {what.replace('_', ' ')} (run `neo4j-retag "
               "ingest` with EMBEDDINGS=true, the default)")
        if required:
            raise ConfigError(f"vector retrieval needs embeddings: {why}")
        _note_once(trace, f"{why}: no vector search")
        return None
    emb = Embedder.of(llm)
    emb.dimensions = st["dimensions"]  # a reply of another length is an unusable reply
    try:
        got = await emb.embed(list(texts), stage=Stage.EMBED_QUERY)
    except LLMError as err:
        if required:
            raise
        _note_once(trace, f"embedding the question failed ({err.reason}): no vector search")
        trace.failures.append(Failure.of("embed question", err))
        return None
    for vector in got:
        db_vectors.check_query(st, vector, settings.embedding.model)
    return got
