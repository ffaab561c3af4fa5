"""`neo4j-retag ingest`: documents -> text units -> graph -> communities -> reports -> topics
-> embeddings (EMBEDDINGS=false: none).

The indexing half of Edge et al. 2024 (§3.1.1-3.1.5) and ReTAG's topic augmentation (§3.2.1).
Every stage is resumable: text units carry an `extracted` mark written in the same transaction
as their elements, the graph carries a `graph_dirty` mark until its communities are rebuilt,
communities carry their report status, and topics a `topics_dirty` mark; the LLM response cache
makes a rerun of anything that succeeded free.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from .. import tokens
from ..config import Settings
from ..db import Graph, preflight, vectors
from ..errors import ConfigError, DatabaseUnreachable, Failure, RetagError
from ..llm import LLM
from ..model import GENERAL, Progress, TextUnit, no_progress, timed
from .communities import Clusterer
from .documents import LOST_CHAR, LOST_KEYS, Document, check_inputs, read_path
from .elements import ExtractionWriter, mark_failed, summarize_descriptions
from .embed import embed_graph, prepare
from .encoding import check_encoding
from .extract import extract_text_unit
from .gds import sessions_requirements
from .lazy_index import build_lazy, planned_method, upgrade_to_full
from .lock import holding_index_lock
from .remove import remove_documents
from .reports import build_reports
from .results import IngestResult
from .sentences import document_sentences, sentences_of_units
from .topics import build_topics

log = logging.getLogger(__name__)


def text_units(doc: Document, settings: Settings) -> list[tuple[TextUnit, dict[str, object]]]:
    """The document split into text units of ``chunk_size`` tokens (``chunk_overlap``
    shared; tables cut between rows), ids ``<doc id prefix>-<index>``, each with where it is
    (``Document.locate``: page, pages, slide, heading, location; Chunk properties) and the
    document's sentences it touches (``index/sentences``: ``TextUnit.sentences``)."""
    spans = tokens.split_spans(doc.text, settings.index.chunk_size,
                               settings.index.chunk_overlap, settings.encoding)
    sentences = document_sentences(doc.id, doc.text, doc.locate)
    touched = sentences_of_units(sentences, [(a, b) for _, a, b in spans])
    by_id = {s.id: s for s, _, _ in sentences}
    out = []
    for i, (text, start, end) in enumerate(spans):
        where = doc.locate(start, end)
        out.append((TextUnit(id=f"{doc.id[:24]}-{i:05d}", text=text, index=i,
                             n_tokens=tokens.count(text, settings.encoding),
                             prev_id=f"{doc.id[:24]}-{i - 1:05d}" if i else None,
                             sentences=[by_id[s] for s in touched[i]],
                             location=str(where.get("location") or "")), where))
    return out


def load_documents(graph: Graph, settings: Settings, paths: Sequence[Path],
                   result: IngestResult, text_field: str | None = None,
                   progress: Progress = no_progress) -> None:
    """Read, replace edited documents, MERGE documents and their text units (``paths``
    checked by ``run_ingest``: ``documents.check_inputs``; a long PDF's pages read go to
    ``progress``)."""
    docs: dict[str, Document] = {}
    for path in paths:
        for item in read_path(path, text_field, progress):
            if isinstance(item, Failure):
                result.skipped.append(item)
            else:
                docs.setdefault(item.id, item)
    result.documents_read = len(docs)
    existing = {r["id"] for r in graph.run("index/existing_documents", ids=list(docs))}
    stale = graph.run("index/stale_documents",
                      docs=[{"id": d.id, "path": d.path} for d in docs.values()])
    # an edited file: its old text units and their contributions go (or those a delete cut
    # short left)
    remove_documents(graph, [row["id"] for row in stale], topics=False)
    result.documents_replaced = len(stale)
    rows = []
    for doc in docs.values():
        for key in LOST_KEYS:
            if doc.metadata.get(key):
                result.lossy[key] = result.lossy.get(key, 0) + int(doc.metadata[key])
        if doc.id in existing:
            continue
        units = text_units(doc, settings)
        if lossy := sum(LOST_CHAR in u.text for u, _ in units):
            result.lossy["text_units"] = result.lossy.get("text_units", 0) + lossy
        sentences = {s.id: s.model_dump() for u, _ in units for s in u.sentences}
        rows.append({"id": doc.id, "title": doc.title, "path": doc.path,
                     "metadata": doc.metadata, "sentences": list(sentences.values()),
                     "chunks": [u.model_dump(exclude={"sentences"}) | where
                                | {"sentence_ids": [s.id for s in u.sentences]}
                                for u, where in units]})
        result.documents_new += 1
        result.text_units_new += len(units)
    # one document per row: a document and its text units are written together or not at all
    graph.write("index/upsert_documents", rows)


async def extract_pending(graph: Graph, llm: LLM, settings: Settings, result: IngestResult,
                          progress: Progress) -> None:
    """Extract every text unit not yet extracted; a failing one is recorded and skipped."""
    pending = [TextUnit.model_validate(r) for r in graph.run("index/pending_chunks")]
    result.text_units_total = graph.run("index/graph_counts", label="Chunk")[0]["nodes"]
    result.text_units_pending = len(pending)
    task = "text units extracted"
    progress(task, 0, len(pending))
    # twice as many text units in flight as LLM calls: each finishes extracting before more
    # start, instead of every first extraction queueing ahead of every gleaning round
    in_flight = asyncio.Semaphore(2 * settings.llm.parallel)
    # extractions are merged in batched transactions spanning many text units (group commit)
    writer = ExtractionWriter(graph)

    async def one(unit: TextUnit) -> None:
        try:
            async with in_flight:
                ex = await extract_text_unit(llm, settings, unit, glean=settings.index.glean,
                                             claims=settings.index.extract_claims)
            await writer.write(ex)
            result.text_units_extracted += 1
            for reason in ex.dropped:
                result.dropped_records[reason] = result.dropped_records.get(reason, 0) + 1
        except ConfigError:
            raise  # a wrong setting or an unreachable service fails every item alike
        except Exception as err:  # noqa: BLE001 - one text unit's fault fails that unit only
            log.warning("text unit %s failed: %s", unit.id, err,
                        exc_info=not isinstance(err, RetagError))
            mark_failed(graph, unit.id, err)
            result.text_units_failed.append(Failure.of(unit.id, err))
        progress(task, 1, None)

    tasks = [asyncio.create_task(one(u)) for u in pending]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        # a ConfigError (Neo4j gone) ends the run: the other text units stop now, before the
        # LLM client closes under their calls (each would fail as "client has been closed")
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    log.debug("%d text units written in %d transactions", result.text_units_extracted,
              writer.transactions)


def rebuild_communities(graph: Graph, settings: Settings) -> int:
    """General-graph hierarchy; returns the number of communities. Topic communities built
    on the old hierarchy are removed first (archived: the next topic build reuses their
    reports by key); the topics and their text-unit labels stay for the incremental topic
    build (index/topic_basis.py). A community with the same level and members as before keeps
    its id and its report (``Clusterer.write``): the same graph gets the same ids (global
    search batches and cites by id), and an added document changes only the communities it
    touches."""
    graph.run_script("index/clear_topic_communities")
    clusterer = Clusterer(graph, settings)
    comms = clusterer.write(clusterer.hierarchy(GENERAL), GENERAL)
    graph.run("index/set_index_meta", props={"graph_dirty": False, "topics_dirty": True})
    return len(comms)


@holding_index_lock("ingest")
async def run_ingest(graph: Graph, llm: LLM, settings: Settings, paths: Sequence[Path] = (),
                     *, progress: Progress = no_progress, text_field: str | None = None,
                     topics: bool = True, topic_mode: str | None = None,
                     reembed: bool = False) -> IngestResult:
    """Read ``paths`` (none: finish what earlier runs left), the whole index, then ReTAG
    topics (``topic_mode``, default TOPIC_MODE: index/topics.py) when the graph changed since
    they were built, they were never built or were built another way (communities against
    mined), and ``topics`` is true, then embeddings (EMBEDDINGS); ``reembed`` drops every
    stored vector first (another embedding model or dimension).

    Raises InputError for a missing path, paths with no file of a type it reads, or an
    unknown topic mode, ConfigError for services
    (a missing GDS_MODE=sessions setting before any LLM call: communities need it).
    """
    check_inputs(paths)  # before anything is written or paid
    if settings.gds.mode == "sessions":
        sessions_requirements(settings)
    result = IngestResult()
    if reembed:
        vectors.drop(graph)
        result.outcomes.append("every stored vector dropped (--reembed)")
    try:
        await _ingest(graph, llm, settings, paths, result, progress, text_field, topics,
                      topic_mode)
        if settings.embedding.enabled:  # whatever the stages above left: text units at least
            with timed(result.seconds, "embed"):
                result.embeddings = await embed_graph(graph, llm, settings, progress)
        return result
    except DatabaseUnreachable as err:
        # each text unit is marked extracted in the transaction holding its writes: what was
        # committed is whole, the rest is pending, and a rerun goes on from there. "At least":
        # a commit whose answer was lost with the server may have gone through
        saved = result.text_units_total - result.text_units_pending + result.text_units_extracted
        total = result.text_units_total or result.text_units_new
        raise DatabaseUnreachable(f"{err}: at least {saved} of {total} text units saved; "
                                  "rerun resumes") from err


async def _ingest(graph: Graph, llm: LLM, settings: Settings, paths: Sequence[Path],
                  result: IngestResult, progress: Progress, text_field: str | None,
                  topics: bool, topic_mode: str | None) -> IngestResult:
    graph.ensure_schema()
    check_encoding(graph, settings)
    preflight.require(graph, settings)  # GDS, schema, vector indexes: before any paid call
    if settings.embedding.enabled:  # a wrong endpoint or model stops the run before any call
        await prepare(graph, llm, settings)
    # lazy: INDEX_METHOD=lazy, or the graph holds a lazy index; upgrade: --full on a lazy one
    plan = planned_method(graph, settings)
    if plan == "upgrade":
        with timed(result.seconds, "upgrade"):
            upgrade_to_full(graph, result.outcomes)
    with timed(result.seconds, "load"):
        progress("documents loaded", 0, None)
        load_documents(graph, settings, paths, result, text_field, progress)
        progress("documents loaded", result.documents_read, result.documents_read)
    if plan == "lazy":  # concepts and their communities, no LLM call (index/lazy_index.py)
        with timed(result.seconds, "concepts"):
            result.text_units_extracted, result.communities_rebuilt = build_lazy(
                graph, settings, progress, result.outcomes)
        return result
    with timed(result.seconds, "extract"):
        await extract_pending(graph, llm, settings, result, progress)
    with timed(result.seconds, "summarize"):
        result.elements_summarized, result.descriptions_joined = await summarize_descriptions(
            graph, llm, settings, progress, failed=result.summaries_failed,
            chatter=result.chatter_stripped)
    if not graph.run("index/graph_counts", label="Entity")[0]["nodes"]:
        if not graph.run("index/graph_counts", label="Community")[0]["nodes"]:
            why = ", ".join(f"{n} {reason}" for reason, n in sorted(
                result.dropped_records.items())) or "the replies named none"
            result.outcomes.append(f"no entities extracted ({why}): communities, reports and "
                                   "topics skipped")
            return result
        # an empty graph has no communities, reports or topics (every document deleted: the
        # old ones would answer from content that is gone), nor archived reports of that content
        graph.run_script("index/clear_topics")
        graph.run_batched("index/clear_communities")
        graph.run("index/set_index_meta", props={"graph_dirty": False, "topics_dirty": False})
        result.communities_rebuilt = True
        result.outcomes.append("no entities left: communities, reports and topics removed")
        return result
    with timed(result.seconds, "communities"):
        if graph.run("index/index_meta")[0]["graph_dirty"] is not False:
            progress("communities (Leiden)", 0, 1)
            rebuild_communities(graph, settings)
            result.communities_rebuilt = True
            progress("communities (Leiden)", 1, None)
        if result.summaries_failed:  # their descriptions change on the retry: so do reports
            graph.run("index/set_index_meta", props={"graph_dirty": True})
    with timed(result.seconds, "reports"):
        result.reports = await build_reports(graph, llm, settings, GENERAL, progress,
                                             result.chatter_stripped)
    mode = topic_mode or settings.topic_build_mode
    meta = graph.run("index/index_meta_all")[0]
    # topics built before their mode was stored were mined
    built = "communities" if meta.get("topics_mode") == "communities" else "mined"
    wanted = "communities" if mode == "communities" else "mined"
    if not topics or (meta.get("topics_dirty") is False and built == wanted):
        return result
    if not settings.query.retag_topics:  # ReTAG reads no topic: none paid for
        result.outcomes.append("topics not built: RETAG_TOPICS=false, ReTAG reads the general "
                               "graph's reports (`neo4j-retag topics build` builds them anyway)")
        return result
    if result.reports.failed or result.reports.waiting:
        # topics mined from an incomplete set of reports would differ from the full one's
        result.outcomes.append("topics not rebuilt: community reports failed (the next run "
                               "retries them, then builds topics)")
        return result
    with timed(result.seconds, "topics"):
        result.topics = await build_topics(graph, llm, settings, mode=mode,
                                           progress=progress, incremental=True)
        result.topics_failed = result.topics.failed
        labelled = ("" if mode == "communities" else
                    f" ({result.topics.text_units_labelled} text units labelled)")
        result.outcomes.append(f"topics: {result.topics.why}{labelled}")
    return result
