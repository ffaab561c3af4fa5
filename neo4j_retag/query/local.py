"""Local search (Edge et al. 2024's local mode, a §3.2 comparison condition): the entities
matching the question, their relationships, their community reports and the text units that
mention them, within one context budget, answered in one call. The text units are ranked by
BM25 against the question before the budget cuts them (the full-text index found the
entities; the units come from their mentions, in no useful order)."""

from __future__ import annotations

from .. import events
from ..config import Settings
from ..db import Graph
from ..llm import LLM
from ..model import Answer, Citation, Query, Trace, timed
from ..prompts import csv_table
from .citations import cited_sources
from .common import answer_from, bm25_order, fit, no_answer
from .retrieval import lucene_query, query_level

LOCAL_K = 10  # entities matched by the full-text index
TABLES = 4  # entities, relationships, reports, sources: each gets a quarter of the budget


async def ask_local(graph: Graph, llm: LLM, settings: Settings, query: Query) -> Answer:
    """Local search at ``query.level``; cites reports and text units."""
    level = query_level(graph, settings, query.level)
    trace = Trace(method="local", level=level)
    with timed(trace.seconds, "retrieve"):
        q = lucene_query(query.question)
        found = graph.run("query/local_context", query=q, k=LOCAL_K, level=level) if q else []
    if not found:
        trace.note("no entity matches the question")
        return Answer(answer=no_answer(settings), trace=trace)
    reports = {r["id"]: r for f in found for r in f["reports"]}
    units = list({u["id"]: u for f in found for u in f["text_units"]}.values())
    units = [units[i] for i in bm25_order(query.question, [u["text"] for u in units])]
    budget = settings.query.reduce_context_tokens // TABLES
    enc = settings.encoding
    parts = [
        csv_table("Entities", ["entity", "type", "description"], fit(
            [[f["name"], f["type"], f["description"] or ""] for f in found], budget, enc)),
        csv_table("Relationships", ["source", "target", "description", "weight"], fit(
            [[r["source"], r["target"], r["description"] or "", r["weight"]]
             for f in found for r in f["rels"] if r], budget, enc)),
        csv_table("Reports", ["id", "title", "summary"], fit(
            [[i, r["title"] or "", r["summary"] or ""] for i, r in reports.items()], budget, enc)),
    ]
    source_rows = fit([[i, u["text"]] for i, u in enumerate(units)], budget, enc)
    parts.append(csv_table("Sources", ["id", "text"], source_rows))
    trace.reports_retrieved = len(reports)
    events.emit("retrieved", entities=len(found), reports=len(reports), text_units=len(units),
                method="local", level=level)
    text = await answer_from(llm, settings, query, "\n".join(parts), trace)
    valid = {f"reports:{i}": Citation(kind="report", id=i, title=r["title"] or "", level=level)
             for i, r in reports.items()}
    valid |= {f"sources:{r[0]}": Citation(kind="text_unit", id=units[r[0]]["id"])
              for r in source_rows}
    return Answer(answer=text, citations=cited_sources(text, valid, trace), trace=trace)
