"""`neo4j-retag ingest`: documents -> text units -> graph -> communities -> reports.

The indexing half of Edge et al. 2024 (§3.1.1-3.1.5). Every stage is resumable: text units
carry an `extracted` mark written in the same transaction as their elements, the graph carries
a `graph_dirty` mark until its communities are rebuilt, and communities carry their report
status; the LLM response cache makes a rerun of anything that succeeded free.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import tokens
from .communities import GENERAL, Clusterer
from .config import Settings
from .db import Graph
from .documents import Document, Skipped, read_path
from .extract import extract_chunk
from .graph import mark_failed, summarize_descriptions, write_extraction
from .llm import LLM, LLMError
from .reports import build_reports


@dataclass
class IngestResult:
    documents_read: int = 0
    documents_new: int = 0
    documents_replaced: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    text_units_new: int = 0
    text_units_extracted: int = 0
    text_units_failed: list[dict[str, str]] = field(default_factory=list)
    elements_summarized: int = 0
    communities_rebuilt: bool = False
    reports: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def chunk_rows(doc: Document, settings: Settings) -> list[dict[str, Any]]:
    units = tokens.split(doc.text, settings.chunk_size, settings.chunk_overlap, settings.encoding)
    rows = []
    for i, text in enumerate(units):
        cid = f"{doc.id[:24]}-{i:05d}"
        rows.append({"id": cid, "text": text, "index": i,
                     "n_tokens": tokens.count(text, settings.encoding),
                     "prev_id": f"{doc.id[:24]}-{i - 1:05d}" if i else None})
    return rows


def progress_bar(console: Console) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=False,
                    disable=not console.is_terminal)


@contextmanager
def timed(result: IngestResult, stage: str) -> Iterator[None]:
    t0 = time.perf_counter()
    try:
        yield
    finally:
        result.seconds[stage] = round(result.seconds.get(stage, 0) + time.perf_counter() - t0, 3)


def load_documents(graph: Graph, settings: Settings, paths: list[Path],
                   result: IngestResult, text_field: str | None = None) -> None:
    """Read, replace edited documents, MERGE documents and their text units."""
    docs: dict[str, Document] = {}
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"no such file or folder: {path}")
        for item in read_path(path, text_field):
            if isinstance(item, Skipped):
                result.skipped.append({"path": item.path, "reason": item.reason})
            else:
                docs.setdefault(item.id, item)
    result.documents_read = len(docs)
    existing = {r["id"] for r in graph.run("existing_documents", ids=list(docs))}
    stale = graph.run("stale_documents", docs=[{"id": d.id, "path": d.path} for d in docs.values()])
    for row in stale:  # an edited file: its old text units and their contributions go
        graph.run_script("remove_document", id=row["id"])
    result.documents_replaced = len(stale)
    rows = []
    for doc in docs.values():
        if doc.id in existing:
            continue
        chunks = chunk_rows(doc, settings)
        rows.append({"id": doc.id, "title": doc.title, "path": doc.path,
                     "metadata": doc.metadata, "chunks": chunks})
        result.documents_new += 1
        result.text_units_new += len(chunks)
    # one document per row: a document and its text units are written together or not at all
    graph.write("upsert_documents", rows)


async def extract_pending(graph: Graph, llm: LLM, settings: Settings, result: IngestResult,
                          progress: Progress) -> None:
    """Extract every text unit not yet extracted; a failing one is recorded and skipped."""
    pending = graph.run("pending_chunks")
    task = progress.add_task("text units extracted", total=len(pending))
    # twice as many text units in flight as LLM calls: each finishes (and is written) before more
    # start, instead of every first extraction queueing ahead of every gleaning round
    in_flight = asyncio.Semaphore(2 * settings.concurrency)

    async def one(row: dict[str, str]) -> None:
        async with in_flight:
            await extract_one(row)

    async def extract_one(row: dict[str, str]) -> None:
        try:
            ex = await extract_chunk(llm, settings, row["id"], row["text"],
                                     glean=settings.glean, claims=settings.extract_claims)
            # in a worker thread, so the LLM calls of other text units go on meanwhile
            await asyncio.to_thread(write_extraction, graph, ex)
            result.text_units_extracted += 1
        except LLMError as err:
            mark_failed(graph, row["id"], str(err))
            result.text_units_failed.append({"id": row["id"], "error": str(err)[:300]})
        progress.advance(task)

    await asyncio.gather(*(one(r) for r in pending))


def rebuild_communities(graph: Graph, settings: Settings) -> int:
    """General-graph hierarchy; returns the number of communities."""
    clusterer = Clusterer(graph, settings)
    comms = clusterer.write(clusterer.hierarchy(GENERAL), GENERAL)
    graph.run("set_index_meta", props={"graph_dirty": False, "topics_dirty": True})
    return len(comms)


async def run_ingest(settings: Settings, paths: list[Path], llm: LLM, graph: Graph,
                     console: Console, text_field: str | None = None) -> IngestResult:
    """The whole index; raises FileNotFoundError for a missing path, ConfigError for services."""
    result = IngestResult()
    graph.ensure_schema()
    with progress_bar(console) as progress:
        with timed(result, "load"):
            load_documents(graph, settings, paths, result, text_field)
        with timed(result, "extract"):
            await extract_pending(graph, llm, settings, result, progress)
        with timed(result, "summarize"):
            task = progress.add_task("entities/relationships summarised", total=None)
            result.elements_summarized = await summarize_descriptions(
                graph, llm, settings, lambda n: progress.advance(task, n))
        with timed(result, "communities"):
            if graph.run("index_meta")[0]["graph_dirty"] is not False:
                rebuild_communities(graph, settings)
                result.communities_rebuilt = True
        with timed(result, "reports"):
            task = progress.add_task("community reports", total=None)
            result.reports = await build_reports(graph, llm, settings, GENERAL,
                                                 lambda n: progress.advance(task, n))
    return result
