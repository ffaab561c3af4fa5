"""The comparison conditions of Edge et al. 2024 (§3.2): local search, plain BM25 RAG over
text units (their vector-RAG baseline "SS", with Lucene BM25 in place of embeddings), and
text summarisation ("TS": map-reduce straight over the text units, no graph)."""

from __future__ import annotations

import re
import time
from typing import Any

from .config import Settings
from .db import Graph
from .llm import LLM
from .prompts import csv_table, render
from .retag import lucene_query
from .search import NO_ANSWER, Answer, Trace, complete_or_note, map_reduce
from .tokens import count

SOURCES = re.compile(r"\[Data:\s*(Sources|Reports)\s*\(([^)]*)\)\]", re.I)


def _fit(rows: list[list[Any]], budget: int, enc: str) -> list[list[Any]]:
    """The leading rows whose lines fit ``budget`` tokens."""
    out, used = [], 0
    for r in rows:
        n = count(",".join(str(x) for x in r), enc) + 2
        if used + n > budget:
            break
        out.append(r)
        used += n
    return out


async def _answer(llm: LLM, settings: Settings, question: str, context: str,
                  response_type: str, trace: Trace) -> str:
    msgs = render(settings.prompts_dir, "rag_answer", context=context, question=question,
                  response_type=response_type)
    t = time.perf_counter()
    text = await complete_or_note(llm, msgs, "answer", trace)
    trace.seconds["answer"] = round(time.perf_counter() - t, 3)
    return text or NO_ANSWER


def _cited(text: str, valid: dict[str, dict[str, Any]], trace: Trace) -> list[dict[str, Any]]:
    ids: list[str] = []
    for kind, group in SOURCES.findall(text):
        for tok in re.split(r"[,\s]+", group.strip()):
            key = f"{kind.lower()}:{tok}"
            if key in valid:
                ids.append(key)
            elif tok:
                trace.invalid_citations.append(tok)
    return [valid[k] for k in dict.fromkeys(ids)]


async def ask_rag(graph: Graph, llm: LLM, settings: Settings, question: str, *, k: int = 20,
                  response_type: str = "multiple paragraphs") -> Answer:
    """BM25 top-``k`` text units that fit the context budget, one answer call."""
    trace = Trace(method="rag", level=-1)
    t = time.perf_counter()
    query = lucene_query(question)
    hits = graph.run("search_chunks", query=query, k=k) if query else []
    rows = _fit([[i, h["title"], h["text"]] for i, h in enumerate(hits)],
                settings.reduce_context_tokens, settings.encoding)
    trace.reports_retrieved = len(rows)
    trace.seconds["retrieve"] = round(time.perf_counter() - t, 3)
    if not rows:
        trace.notes.append("BM25 retrieved no text unit for the question")
        return Answer(NO_ANSWER, [], trace)
    sources = csv_table("Sources", ["id", "title", "text"], rows)
    text = await _answer(llm, settings, question, sources, response_type, trace)
    valid = {f"sources:{r[0]}": {"id": hits[r[0]]["chunk_id"], "title": r[1], "kind": "text unit"}
             for r in rows}
    return Answer(text, _cited(text, valid, trace), trace)


async def ask_local(graph: Graph, llm: LLM, settings: Settings, question: str, *, level: int,
                    k: int = 10, response_type: str = "multiple paragraphs") -> Answer:
    """Local search: entities matching the question, their relationships, their community
    reports at ``level`` and text units mentioning them, within one context budget."""
    trace = Trace(method="local", level=level)
    t = time.perf_counter()
    query = lucene_query(question)
    found = graph.run("local_context", query=query, k=k, level=level) if query else []
    trace.seconds["retrieve"] = round(time.perf_counter() - t, 3)
    if not found:
        trace.notes.append("no entity matches the question")
        return Answer(NO_ANSWER, [], trace)
    reports = {r["id"]: r for f in found for r in f["reports"]}
    chunks = {c["id"]: c for f in found for c in f["chunks"]}
    budget = settings.reduce_context_tokens // 4
    enc = settings.encoding
    parts = [
        csv_table("Entities", ["entity", "type", "description"], _fit(
            [[f["name"], f["type"], f["description"] or ""] for f in found], budget, enc)),
        csv_table("Relationships", ["source", "target", "description", "weight"], _fit(
            [[r["source"], r["target"], r["description"] or "", r["weight"]]
             for f in found for r in f["rels"] if r], budget, enc)),
        csv_table("Reports", ["id", "title", "summary"], _fit(
            [[i, r["title"] or "", r["summary"] or ""] for i, r in reports.items()], budget, enc)),
    ]
    source_rows = _fit([[i, c["text"]] for i, c in enumerate(chunks.values())], budget, enc)
    parts.append(csv_table("Sources", ["id", "text"], source_rows))
    trace.reports_retrieved = len(reports)
    text = await _answer(llm, settings, question, "\n".join(parts), response_type, trace)
    valid = {f"reports:{i}": {"id": i, "title": r["title"], "kind": "community report"}
             for i, r in reports.items()}
    chunk_ids = list(chunks)
    valid |= {f"sources:{r[0]}": {"id": chunk_ids[r[0]], "title": "", "kind": "text unit"}
              for r in source_rows}
    return Answer(text, _cited(text, valid, trace), trace)


async def ask_ts(graph: Graph, llm: LLM, settings: Settings, question: str, *,
                 response_type: str = "multiple paragraphs") -> Answer:
    """Text summarisation: GraphRAG's map-reduce applied to the text units themselves."""
    chunks = graph.run("all_chunks")
    as_reports = [{"id": i, "title": c["title"], "full_content": c["text"], "level": None}
                  for i, c in enumerate(chunks)]
    answer = await map_reduce(llm, settings, question, as_reports, Trace(method="ts", level=-1),
                              response_type)
    for c in answer.citations:  # map the per-query integers back to text unit ids
        c["id"] = chunks[c["id"]]["chunk_id"]
        c["kind"] = "text unit"
    return answer
