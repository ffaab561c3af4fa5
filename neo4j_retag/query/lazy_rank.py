"""The lazy method's pre-ranking, before any relevance test: every text unit in the order the
tests take them, likeliest first, so the budget goes to the best matches and the early stop
(`lazy_budget`) comes soon. No LLM call: BM25 through the Neo4j full-text index (the question
and its sub-queries); where the text units have embeddings, also the ones nearest the
question's vector (one embedding of the question), the two lists fused by reciprocal rank
(``retrieval.fuse``); the text units neither finds follow in document order."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..config import Settings
from ..db import Graph, Record
from ..errors import ConfigError
from ..llm import LLM
from ..model import Trace
from .common import note_once
from .embedding import embed_question, stored_vectors
from .retrieval import fuse, lucene_query
from .vectors import nearest_text_unit_ids

RANK_LIMIT = 100_000  # BM25 matches read (the rest follow in document order)
VECTOR_K = 200  # text units nearest the question's vector


@dataclass
class Ranking:
    ranked: list[str]  # every text unit, best first
    bm25: int  # BM25 matches
    vector: int  # text units found by the question's vector


async def rank_units(graph: Graph, llm: LLM, settings: Settings, question: str,
                     subs: list[str], units: list[Record], trace: Trace) -> Ranking:
    """``units`` (document order) ranked for ``question`` and its sub-queries ``subs``."""
    q = lucene_query(question, *subs)
    bm25 = [r["id"] for r in graph.run("query/rank_chunks", query=q, k=RANK_LIMIT)] if q else []
    near: list[str] = []
    try:  # vectors only help here: none, or another model's, leave BM25 alone (with a note)
        stored = stored_vectors(graph, settings, "text_units")
    except ConfigError as err:
        note_once(trace, f"the text units' vectors are not comparable ({err}): BM25 alone "
                  "ranks them", logging.WARNING)
        stored = None
    if stored is not None:
        got = await embed_question(graph, llm, settings, [question], trace, "text_units")
        if got:
            near = nearest_text_unit_ids(graph, got[0], VECTOR_K)
    fused = [u for u, _ in fuse([bm25, near], lambda u: u)] if near else bm25
    seen = set(fused)
    return Ranking(fused + [u["id"] for u in units if u["id"] not in seen], len(bm25), len(near))
