"""Two baselines of Edge et al. 2024 (§3.2) that use no graph: plain BM25 RAG over text units
(their vector-RAG baseline "SS", with Lucene BM25 in place of embeddings) and text
summarisation ("TS": map-reduce straight over the text units)."""

from __future__ import annotations

from typing import Any

from .. import events
from ..config import Settings
from ..db import Graph
from ..llm import LLM
from ..model import Answer, Citation, Query, ReportRow, Trace, timed
from ..prompts import csv_table, render
from ..tokens import count
from .citations import cited_sources
from .map_reduce import complete_or_note, map_reduce, no_answer
from .retrieval import lucene_query

RAG_K = 20  # text units BM25 retrieves before the context budget cuts them


def fit(rows: list[list[Any]], budget: int, enc: str) -> list[list[Any]]:
    """The leading rows whose CSV lines fit ``budget`` tokens."""
    out, used = [], 0
    for r in rows:
        n = count(",".join(str(x) for x in r), enc) + 2
        if used + n > budget:
            break
        out.append(r)
        used += n
    return out


async def answer_from(llm: LLM, settings: Settings, query: Query, context: str,
                      trace: Trace) -> str:
    """One answer call over a prepared context (``prompts/query/rag_answer.txt``)."""
    msgs = render(settings.prompts_dir, "query/rag_answer", context=context,
                  question=query.question, response_type=query.response_type)
    with timed(trace.seconds, "answer"):
        text = await complete_or_note(llm, msgs, "answer", trace)
    return text or no_answer(settings)


async def ask_rag(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """BM25 top-20 text units that fit the context budget, one answer call."""
    trace = Trace(method="rag", level=-1)
    with timed(trace.seconds, "retrieve"):
        q = lucene_query(query.question)
        hits = graph.run("query/search_chunks", query=q, k=RAG_K) if q else []
        rows = fit([[i, h["title"], h["text"]] for i, h in enumerate(hits)],
                   settings.reduce_context_tokens, settings.encoding)
    trace.reports_retrieved = len(rows)
    events.emit("retrieved", text_units=len(rows), method="rag", level=-1)
    if not rows:
        trace.note("BM25 retrieved no text unit for the question")
        return Answer(answer=no_answer(settings), trace=trace)
    sources = csv_table("Sources", ["id", "title", "text"], rows)
    text = await answer_from(llm, settings, query, sources, trace)
    valid = {f"sources:{r[0]}": Citation(kind="text_unit", id=hits[r[0]]["chunk_id"],
                                         title=r[1]) for r in rows}
    return Answer(answer=text, citations=cited_sources(text, valid, trace), trace=trace)


async def ask_ts(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """Text summarisation: GraphRAG's map-reduce applied to the text units themselves."""
    chunks = graph.run("query/all_chunks")
    as_reports = [ReportRow(id=i, title=c["title"] or "", full_content=c["text"])
                  for i, c in enumerate(chunks)]
    answer = await map_reduce(llm, settings, query.question, as_reports,
                              Trace(method="ts", level=-1), query.response_type)
    # the map-reduce ids are positions in this query's list: back to text unit ids
    answer.citations, answer.sources = ([
        c.model_copy(update={"kind": "text_unit", "id": chunks[int(c.id)]["chunk_id"]})
        for c in cs] for cs in (answer.citations, answer.sources))
    return answer
