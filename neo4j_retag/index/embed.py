"""`ingest`'s embed stage: text units, entity descriptions and community reports
(title + summary + findings) embedded and stored on their nodes (``embedding``), for the
vector indexes that hybrid retrieval, local search and DRIFT read.

Resumable and incremental: each node keeps ``embedding_key``, a hash of the embedding model,
EMBEDDING_DIMENSIONS and the text it embedded; only nodes whose key differs (new, or their
text changed: a merged description, a rebuilt report) are embedded, and each batch is written
as soon as it is back. A node that fails keeps its old key and is retried by the next run.
Two probes that agree fix the vector indexes' dimension (``db.vectors.ensure``; a reply of
another length then fails its items): a
model or dimension change with vectors stored stops the run with one line naming the fix.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import Any

from ..config import Settings
from ..db import Graph, Record, vectors
from ..errors import Failure, LLMError
from ..llm import LLM
from ..llm.embeddings import Embedder
from ..model import Progress, no_progress
from ..stages import Stage
from .results import EmbedCounts

log = logging.getLogger(__name__)
TASK = "texts embedded"
# label -> its count field in EmbedCounts
KINDS = {"Chunk": "text_units", "Entity": "entities", "Community": "reports"}
# the two inputs whose vectors must agree before the indexes are made (cached like any)
PROBES = ("dimension probe", "a second dimension probe")


def report_text(row: Record) -> str:
    """A community report as embedded: title, summary, then each finding (summary:
    explanation); the report's markdown when it has no findings stored (an import)."""
    try:
        findings = json.loads(row.get("findings") or "[]")
    except ValueError:
        findings = []
    parts = [row.get("title") or "", row.get("summary") or ""]
    parts += [f"{f.get('summary', '')}: {f.get('explanation', '')}" for f in findings
              if isinstance(f, dict)]
    text = "\n".join(p for p in parts if p.strip())
    return text if findings or not row.get("full_content") else row["full_content"]


def entity_text(row: Record) -> str:
    """An entity as embedded: ``name: description`` (GraphRAG's entity description
    embedding)."""
    return f"{row['name']}: {row.get('description') or ''}".strip()


def key_of(settings: Settings, text: str) -> str:
    e = settings.embedding
    return hashlib.sha256(json.dumps([e.model, e.dimensions, text]).encode()).hexdigest()[:32]


def pending(graph: Graph, settings: Settings) -> dict[str, dict[str, tuple[str, str]]]:
    """Per label, {node id: (text, key)} of the nodes whose stored embedding is missing or
    was made from another text, model or dimension. Nodes without text are left out."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for label in KINDS:
        todo: dict[str, tuple[str, str]] = {}
        for row in graph.run("index/embedding_chunks" if label == "Chunk" else
                             "index/embedding_entities" if label == "Entity" else
                             "index/embedding_communities"):
            text = (report_text(row) if label == "Community" else
                    entity_text(row) if label == "Entity" else row["text"] or "")
            if not text.strip():
                continue
            key = key_of(settings, text)
            if key != row["key"]:
                todo[str(row["id"])] = (text, key)
        out[label] = todo
    return out


async def prepare(graph: Graph, llm: LLM, settings: Settings) -> int:
    """Check the endpoint and the stored vectors before any other stage spends a call: the
    dimension from one (cached) probe, the vector indexes made for it. Raises ConfigError (an
    unreachable endpoint, a wrong model, another model or dimension stored) and LLMError."""
    emb = Embedder.of(llm)
    # two requests (both cached) that must agree: one bad reply never sets the index's
    # dimension, which every later vector is held to
    dims = [len((await emb.embed([text], stage=Stage.EMBED))[0])
            for text in PROBES]
    if dims[0] != dims[1]:
        raise LLMError(f"the embedding endpoint gave {settings.embedding.model} vectors of "
                       f"{dims[0]} and {dims[1]} dimensions for two probes: no dimension to "
                       "index by; check EMBEDDING_MODEL and the endpoint", "invalid")
    vectors.ensure(graph, settings.embedding.model, dims[0])
    return dims[0]


async def embed_graph(graph: Graph, llm: LLM, settings: Settings,
                      progress: Progress = no_progress) -> EmbedCounts:
    """Embed every pending node (see ``pending``); ``prepare`` must have run. Failed items
    are listed (``failures``) and retried by the next run; raises ConfigError."""
    counts = EmbedCounts()
    todo = pending(graph, settings)
    total = sum(map(len, todo.values()))
    progress(TASK, 0, total)
    if not total:
        return counts
    emb = Embedder.of(llm)
    # the indexes' dimension: a reply of another length fails its items, never stored
    emb.dimensions = vectors.state(graph)["dimensions"]
    size = settings.embedding.batch * 4  # written per group of requests: resumable
    # sorted by text: the same text (a report reused at another level: BBC-200 has 889
    # texts for 3,678 communities) falls in one group, where it is embedded once
    groups = [(label, {i: items[i][0] for i in ids[start:start + size]})
              for label, items in todo.items()
              for ids in [sorted(items, key=lambda i, items=items: items[i][0])]
              for start in range(0, len(ids), size)]
    # the next group's requests are in flight while this one is written (the endpoint
    # computes while Neo4j writes)
    ahead = asyncio.ensure_future(emb.embed_items(groups[0][1], stage=Stage.EMBED))
    for n, (label, part) in enumerate(groups):
        got, failed = await ahead
        if n + 1 < len(groups):
            ahead = asyncio.ensure_future(emb.embed_items(groups[n + 1][1], stage=Stage.EMBED))
        rows: list[dict[str, Any]] = [{"id": _typed(label, i), "embedding": v,
                                       "key": todo[label][i][1]} for i, v in got.items()]
        try:  # in a thread: the event loop keeps the next group's requests going
            await asyncio.to_thread(lambda label=label, rows=rows: graph.write(
                "index/set_chunk_embeddings" if label == "Chunk" else
                "index/set_entity_embeddings" if label == "Entity" else
                "index/set_community_embeddings", rows))
        except BaseException:
            ahead.cancel()
            raise
        field = KINDS[label]
        setattr(counts, field, getattr(counts, field) + len(rows))
        for f in failed:
            log.warning("embedding of %s %s failed: %s", label, f.item, f.error)
            counts.failures.append(Failure(item=f"{label.lower()} {f.item}",
                                           reason=f.reason, error=f.error))
        progress(TASK, len(part), None)
    return counts


def _typed(label: str, item: str) -> Any:
    return int(item) if label == "Community" else item


async def embed_if_enabled(graph: Graph, llm: LLM, settings: Settings,
                           progress: Progress = no_progress) -> EmbedCounts:
    """``prepare`` then ``embed_graph`` when EMBEDDINGS is on (after `topics build`, an
    import): nothing otherwise."""
    if not settings.embedding.enabled:
        return EmbedCounts()
    await prepare(graph, llm, settings)
    return await embed_graph(graph, llm, settings, progress)
