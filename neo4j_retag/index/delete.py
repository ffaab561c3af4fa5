"""`neo4j-retag documents list|delete`: what the index holds, and taking documents out.

Deleting a document undoes its contribution to the element instances of Edge et al. 2024
§3.1.2-3.1.3 (text units, mentions, claims, relationship evidence), as `pipeline` does for an
edited file, and sets the dirty marks the pipeline resumes from: element summaries whose
description set changed, `graph_dirty` (communities, reports) and `topics_dirty` (ReTAG
topics). The next `ingest` re-summarises and rebuilds exactly those, or `delete_and_rebuild`
does it at once, under the same lock.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import Settings
from ..db import Graph, Record
from ..db.lock import index_lock
from ..errors import NotFoundError
from ..llm import LLM
from ..model import Progress, no_progress
from .lock import holding_index_lock
from .pipeline import run_ingest
from .remove import remove_documents

log = logging.getLogger(__name__)

MIN_ID_PREFIX = 8  # a shorter id prefix is too likely to match several documents


def list_documents(graph: Graph) -> list[Record]:
    """One row per document: ``id``, ``title``, ``path``, ``text_units``, ``entities`` (distinct
    entities its text units mention), ``entities_only_here`` (of those, the ones no other
    document mentions), ``ingested_at`` (ISO timestamp string or None), ``text_units_lossy``
    (text units holding U+FFFD) and ``lost`` ({pages_without_text, hidden_slides,
    hidden_shapes, unmapped_glyphs}: counts as strings, None when none)."""
    return graph.run("index/list_documents")


def _matches(ref: str, doc: Record) -> bool:
    path = doc.get("path") or ""
    if ref == doc["id"] or (len(ref) >= MIN_ID_PREFIX and doc["id"].startswith(ref)):
        return True
    # a path as given at ingest, or its absolute form; a folder or a .jsonl/.csv file
    # matches every document read from it (record paths are "<file>#<n>")
    candidates = {ref.rstrip("/"), str(Path(ref).resolve())}
    for p in candidates:
        if path == p or path.startswith(p + "/") or path.startswith(p + "#"):
            return True
    # documents ingested by relative path match the file named by absolute path too
    return bool(path) and not Path(path).is_absolute() and str(Path(path).resolve()) in candidates


def resolve(graph: Graph, refs: Sequence[str]) -> list[Record]:
    """The documents named by ``refs`` (ids, id prefixes of >= 8 characters, paths, folders).

    Raises NotFoundError naming every ref that matches no document (nothing is deleted then)."""
    docs = list_documents(graph)
    found: dict[str, Record] = {}
    missing = []
    for ref in refs:
        hits = [d for d in docs if _matches(ref, d)]
        if not hits:
            missing.append(ref)
        found.update((d["id"], d) for d in hits)
    if missing:
        raise NotFoundError("no such document: " + ", ".join(missing)
                         + " (see `neo4j-retag documents list`)")
    return list(found.values())


def delete_documents(graph: Graph, refs: Sequence[str]) -> dict[str, Any]:
    """Delete the documents named by ``refs`` and everything only they support, in
    transactions of bounded size (:func:`remove.remove_documents`: a delete cut short is
    finished by running it again). Shared entities and relationships keep the remaining
    evidence (weights and strengths recomputed now; descriptions re-summarised by the next
    ingest where their set changed). On a lazy index, co-occurrences lose the text units that
    go and concepts no text unit has any more go too. Communities, reports and topics are
    marked stale.

    Returns ``{"documents": [{id, title, path}], "entities_to_resummarise": n,
    "relationships_to_resummarise": n, "nodes_deleted": n, "relationships_deleted": n}``.
    Raises InputError for a ref that matches no document (then nothing changes), or while
    another run writes the index (:mod:`neo4j_retag.db.lock`); TransactionTooLarge when one
    text unit alone is over Neo4j's transaction memory."""
    docs = resolve(graph, refs)
    with index_lock(graph, "documents delete"):
        counters = remove_documents(graph, [d["id"] for d in docs])
        dirty = graph.run("index/dirty_counts")[0]
    return {"documents": [{k: d[k] for k in ("id", "title", "path")} for d in docs],
            "entities_to_resummarise": dirty["entities"],
            "relationships_to_resummarise": dirty["relationships"],
            "nodes_deleted": counters.get("nodes_deleted", 0),
            "relationships_deleted": counters.get("relationships_deleted", 0)}


@holding_index_lock("documents delete")
async def delete_and_rebuild(graph: Graph, llm: LLM, settings: Settings, refs: Sequence[str],
                             *, progress: Progress = no_progress) -> dict[str, Any]:
    """`documents delete --rebuild`: `delete_documents`, then what the next `ingest` would do
    (re-summarise, rebuild communities, reports and topics: `run_ingest` without paths), under
    one lock, so that no other run starts between them. Returns `delete_documents`' result
    with ``rebuild``: the `IngestResult`."""
    out = delete_documents(graph, refs)
    out["rebuild"] = await run_ingest(graph, llm, settings, progress=progress)
    return out
