"""Two baselines of Edge et al. 2024 (§3.2) that use no graph: plain BM25 RAG over text units
(their vector-RAG baseline "SS", with Lucene BM25 in place of embeddings) and text
summarisation ("TS": map-reduce straight over the text units)."""

from __future__ import annotations

from .. import events
from ..config import Settings
from ..db import Graph
from ..llm import LLM
from ..model import Answer, Citation, Query, ReportRow, Trace, timed
from ..prompts import csv_table
from .citations import cited_sources
from .common import answer_from, fit, no_answer
from .map_reduce import map_reduce
from .retrieval import lucene_query

RAG_K = 20  # text units BM25 retrieves before the context budget cuts them


async def ask_rag(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """BM25 top-20 text units that fit the context budget, one answer call."""
    trace = Trace(method="rag", level=-1)
    with timed(trace.seconds, "retrieve"):
        q = lucene_query(query.question)
        hits = graph.run("query/search_text_units", query=q, k=RAG_K) if q else []
        rows = fit([[i, h["title"], h["text"]] for i, h in enumerate(hits)],
                   settings.query.reduce_context_tokens, settings.encoding)
    trace.reports_retrieved = len(rows)
    events.emit("retrieved", text_units=len(rows), method="rag", level=-1)
    if not rows:
        trace.note("BM25 retrieved no text unit for the question")
        return Answer(answer=no_answer(settings), trace=trace)
    sources = csv_table("Sources", ["id", "title", "text"], rows)
    text = await answer_from(llm, settings, query, sources, trace)
    valid = {f"sources:{r[0]}": Citation(kind="text_unit", id=hits[r[0]]["text_unit_id"],
                                         title=r[1]) for r in rows}
    return Answer(answer=text, citations=cited_sources(text, valid, trace), trace=trace)


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
