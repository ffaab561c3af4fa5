"""Two baselines of Edge et al. 2024 (§3.2) that use no graph: plain RAG over text units (their
vector-RAG baseline "SS": ``--retrieval vector`` by embedding, ``bm25`` by Lucene BM25, the
default, or ``hybrid``, both fused by reciprocal rank) and text summarisation ("TS":
map-reduce straight over the text units)."""

from __future__ import annotations

from .. import events
from ..config import Settings
from ..db import Graph, Record
from ..errors import ConfigError
from ..llm import LLM
from ..model import Answer, Citation, Query, ReportRow, Trace, timed
from ..prompts import csv_table
from .answer import MAP_REDUCE as MAP_REDUCE_ANSWER
from .answer import ONE_CALL, QUOTE, Context, respond
from .answer.map_reduce import map_reduce
from .common import fit, no_answer_for
from .contract import Method, Options, option
from .embedding import embed_question
from .retrieval import Mode, fuse, lucene_query
from .vectors import nearest_text_units

RAG_K = 20  # text units retrieved before the context budget cuts them


async def text_units(graph: Graph, llm: LLM, settings: Settings, question: str,
                     retrieval: str, trace: Trace) -> list[Record]:
    """The top RAG_K text units for ``question`` by ``retrieval``: bm25 (the full-text
    index), vector (the text unit vector index, nearest the question's embedding) or hybrid
    (both lists fused by reciprocal rank). Raises ConfigError when vector or hybrid is asked
    for and the text units have no embeddings, LLMError when the question's embedding failed
    (what was asked for cannot be done: no silent BM25 instead)."""
    q = lucene_query(question)
    bm25 = (graph.run("query/search_text_units", query=q, k=RAG_K) if q else []
            ) if retrieval != "vector" else []
    if retrieval == "bm25":
        return bm25
    got = await embed_question(graph, llm, settings, [question], trace, "text_units",
                               required=True)
    assert got is not None  # required: raised instead
    near = nearest_text_units(graph, got[0], RAG_K)
    if retrieval == "vector":
        return near
    return [{**hit, "score": score}
            for hit, score in fuse([bm25, near], lambda hit: hit["text_unit_id"])][:RAG_K]


async def ask_rag(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """The top 20 text units (the ``retrieval`` option: bm25 by default, vector or hybrid)
    that fit the context budget, one answer call."""
    retrieval = RagOptions.of(query).retrieval or "bm25"
    trace = Trace(method="rag", level=-1, retrieval=retrieval)
    with timed(trace.seconds, "retrieve"):
        hits = await text_units(graph, llm, settings, query.question, retrieval, trace)
        rows = fit([[i, h["title"], h["text"]] for i, h in enumerate(hits)],
                   settings.query.reduce_context_tokens, settings.encoding)
    trace.text_units_retrieved = len(rows)
    events.emit("retrieved", text_units=len(rows), method="rag", level=-1)
    if hits and not rows:  # retrieved, but no text unit fits: a budget to fix, not no answer
        q = settings.query.reduce_context_tokens
        raise ConfigError(f"rag: none of the {len(hits)} text units retrieved fits the context "
                          f"budget (REDUCE_CONTEXT_TOKENS {q}"
                          + (f", which follows LLM_CTX {settings.services.llm_ctx}"
                             if settings.llm.local else "") + "): raise it")
    if not rows:
        return Answer(answer=no_answer_for(settings, trace, f"{retrieval} retrieved no text "
                                           "unit for the question"), trace=trace)
    sources = csv_table("Sources", ["id", "title", "text"], rows)
    valid = {f"Sources:{r[0]}": Citation(kind="text_unit", id=hits[r[0]]["text_unit_id"],
                                         title=r[1]) for r in rows}
    return await respond(graph, llm, settings, query, Context(
        text=sources, valid=valid, sources=list(valid.values()),
        units=[hits[r[0]]["text_unit_id"] for r in rows]), trace, (ONE_CALL, QUOTE))


async def ask_ts(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """Text summarisation: GraphRAG's map-reduce applied to the text units themselves."""
    units = graph.run("query/all_text_units")
    as_reports = [ReportRow(id=i, title=u["title"] or "", full_content=u["text"])
                  for i, u in enumerate(units)]
    answer = await map_reduce(llm, settings, query.question, as_reports,
                              Trace(method="ts", level=-1), query.response_type)
    # the map-reduce ids are positions in this query's list: back to text unit ids
    answer.citations, answer.sources = ([
        c.model_copy(update={"kind": "text_unit", "id": units[int(c.id)]["text_unit_id"]})
        for c in cs] for cs in (answer.citations, answer.sources))
    return answer


class RagOptions(Options):
    """rag's `ask` option."""

    retrieval: Mode | None = option("text units by BM25 (its default), by embedding, or both "
                                    "fused by reciprocal rank")


RAG = Method("rag", ask_rag, "text units by BM25 (--retrieval vector|hybrid: by embedding, or "
             "both fused), one answer call", options=RagOptions, rank=5,
             answers=(ONE_CALL, QUOTE))
TS = Method("ts", ask_ts, "text summarisation: map-reduce over every text unit", rank=6,
            answers=(MAP_REDUCE_ANSWER,))
