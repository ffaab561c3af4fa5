"""The entity-relationship graph in Neo4j: merging extractions, summarising descriptions.

Edge et al. 2024 §3.1.3 (element instances -> element summaries). Each text unit's extraction
is merged in the same transaction as the mark that it is done (a transaction spans many text
units: see ExtractionWriter), so a crash never leaves half a text unit behind and a resume never
counts one twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter

from .. import tokens
from ..checks.support import supported
from ..config import Settings
from ..db import MEMORY_CAP, Graph, Record, TransactionTooLarge
from ..errors import Failure, LLMError, error_text
from ..llm import LLM
from ..model import Progress, no_progress
from ..prompts import render
from ..stages import Stage
from ..text import strip_chatter
from ..tokens import truncate
from .assemble import assembled
from .extract_records import TextUnitExtraction

log = logging.getLogger(__name__)
LISTING_TOKENS_PER_SUMMARY_TOKEN = 4  # descriptions read per summary token written
WORDS_PER_TOKEN = 0.75  # English prose: the summary's word limit from its token limit


# the chatter counter's key for summary sentences removed (not supported by their descriptions)
UNSUPPORTED_SUMMARY = "summary sentences unsupported (removed)"
MAX_UNITS_PER_WRITE = 256  # text units merged in one transaction (bounds its size)
# description texts kept on one relationship (a hub pair's evidence reached 400): past it a
# text unit adds its id and strength only, counted in descriptions_left_out
MAX_EVIDENCE_DESCRIPTIONS = 50


def write_extractions(graph: Graph, batch: list[TextUnitExtraction]
                      ) -> dict[str, TransactionTooLarge]:
    """MERGE many text units' entities, relationships and claims, in order, and mark them
    extracted, all in one transaction: a crash leaves each text unit either whole or absent.
    A batch over Neo4j's transaction memory is written in halves, down to one text unit;
    returns the text units over it alone (text unit id -> the one-line error naming it and
    the setting to raise): every other text unit is written, and marked extracted."""
    if not batch:
        return {}
    try:
        _write_extractions(graph, batch)
    except TransactionTooLarge:
        if len(batch) == 1:
            unit = batch[0].text_unit_id
            return {unit: TransactionTooLarge(
                f"the extraction of text unit {unit} is over Neo4j's transaction memory "
                f"({MEMORY_CAP}): raise it (NEO4J_TX_MEMORY for the local server, else in "
                "neo4j.conf) and run `ingest --resume`")}
        log.warning("%d text units' extractions over Neo4j's transaction memory: written in "
                    "halves", len(batch))
        half = len(batch) // 2
        return {**write_extractions(graph, batch[:half]),
                **write_extractions(graph, batch[half:])}
    return {}


def _write_extractions(graph: Graph, batch: list[TextUnitExtraction]) -> None:
    graph.write_tx([
        ("index/merge_unit_sentences",
         {"units": [{"chunk_id": ex.text_unit_id,
                     "sentences": [s.model_dump() for s in ex.sentences]}
                    for ex in batch if ex.sentences]}),
        ("index/merge_entities",
         {"units": [{"chunk_id": ex.text_unit_id, "entities": ex.entities}
                    for ex in batch]}),
        ("index/merge_relationships",
         {"units": [{"chunk_id": ex.text_unit_id, "relationships": ex.relationships}
                    for ex in batch], "max_descriptions": MAX_EVIDENCE_DESCRIPTIONS}),
        ("index/merge_claims",
         {"units": [{"chunk_id": ex.text_unit_id, "claims": ex.claims} for ex in batch]}),
        ("index/mark_chunks_extracted",
         {"units": [{"chunk_id": ex.text_unit_id, "dropped": ex.dropped} for ex in batch]}),
    ])


class ExtractionWriter:
    """Group commit of extractions: ``await writer.write(ex)`` returns once ``ex`` is merged.

    One transaction at a time, in a worker thread (the LLM calls go on meanwhile); whoever
    holds the turn writes every extraction that finished in the meantime (up to
    ``MAX_UNITS_PER_WRITE``), so a batch spans many text units and Neo4j sees a few large
    transactions instead of one per text unit. A failed transaction raises in the ``write``
    of every text unit in it (none of them is marked extracted); a batch over the transaction
    memory is split (:func:`write_extractions`) and only a text unit over it alone raises.
    """

    def __init__(self, graph: Graph, max_units: int = MAX_UNITS_PER_WRITE) -> None:
        self.graph = graph
        self.max_units = max_units
        self.pending: list[tuple[TextUnitExtraction, asyncio.Future[None]]] = []
        self.turn = asyncio.Lock()
        self.transactions = 0

    async def write(self, ex: TextUnitExtraction) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # a writer cancelled meanwhile (the run is stopping) never awaits its future: its
        # error is the run's own, not one more "exception was never retrieved" on stderr
        done.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.pending.append((ex, done))
        async with self.turn:
            batch = self.pending[:self.max_units]
            del self.pending[:len(batch)]
            if batch:
                try:
                    over = await asyncio.to_thread(write_extractions, self.graph,
                                                   [e for e, _ in batch])
                    self.transactions += 1
                except Exception as err:  # handed to each text unit in the batch
                    for _, fut in batch:
                        fut.set_exception(err)
                else:  # written, but for the text units over the memory alone: theirs only
                    for ex, fut in batch:
                        if (err := over.get(ex.text_unit_id)) is not None:
                            fut.set_exception(err)
                        else:
                            fut.set_result(None)
                finally:  # cancelled meanwhile: the batch's other writers must not wait forever
                    for _, fut in batch:
                        if not fut.done():
                            fut.cancel()
        await done


def mark_failed(graph: Graph, unit_id: str, err: BaseException) -> None:
    """Record a failed text unit (retried by the next run); the others are unaffected."""
    graph.run("index/mark_chunk", chunk_id=unit_id, ok=None, error=error_text(err),
              dropped=None)


def _join(descriptions: set[str] | list[str]) -> str:
    """Distinct descriptions, sorted and without the model's chatter, as one text: the rule's
    join and a failed summary's fallback read the same."""
    return " ".join(sorted({strip_chatter(d)[0] for d in descriptions} - {""}))


def joined_descriptions(settings: Settings, descriptions: list[str]) -> str | None:
    """Several descriptions of one element joined (sorted, chatter stripped) when they need
    no summary call: fewer than ``SUMMARY_MIN_DESCRIPTIONS`` distinct ones whose joined text
    fits ``SUMMARY_MAX_TOKENS`` (LightRAG's rule, FORCE_LLM_SUMMARY_ON_MERGE: a summary of a
    few short descriptions only shortens what already fits). None when one or none
    (no call either) or when a summary is due."""
    unique = {d.strip() for d in descriptions if d.strip()}
    if len(unique) <= 1 or len(unique) >= settings.index.summary_min_descriptions:
        return None
    text = _join(unique)
    fits = tokens.count(text, settings.encoding) <= settings.index.summary_max_tokens
    return text if fits else None


def ranked_listing(name: str, descriptions: list[str], max_tokens: int, enc: str) -> str:
    """The distinct descriptions as a ``- `` list within ``max_tokens``: the ones given by
    most text units first (their evidence; ties alphabetical), whole; a last line counts
    the ones left out (logged too), never cut silently."""
    evidence = Counter(d.strip() for d in descriptions if d.strip())
    lines: list[str] = []
    used = 0
    for d in sorted(evidence, key=lambda d: (-evidence[d], d)):
        n = tokens.count(f"- {d}\n", enc)
        if used + n > max_tokens:
            if not lines:  # one description over the whole budget: itself, cut
                lines.append(truncate(f"- {d}", max_tokens, enc))
            break
        lines.append(f"- {d}")
        used += n
    left = len(evidence) - len(lines)
    if left:
        log.info("summary of %r: %d of %d descriptions left out (the listing's budget)",
                 name, left, len(evidence))
        lines.append(f"- ({left} more descriptions, each given by fewer text units, left out)")
    return "\n".join(lines)


async def summarize_texts(llm: LLM, settings: Settings, name: str,
                          descriptions: list[str], failures: list[Failure] | None = None,
                          chatter: Counter[str] | None = None,
                          stage: Stage = Stage.SUMMARIZE) -> str:
    """One description from several (Edge et al. §3.1.3 element summaries); the single one
    as is; the joined texts, truncated, when the LLM fails (a `Failure` of ``name`` then
    appended to ``failures``, so the caller can retry it later). The model's lead-ins and
    wrappers are stripped (``text.strip_chatter``), counted in ``chatter["summarize"]``
    (summaries) and ``chatter["description"]`` (a single extracted description). Never
    raises LLMError."""
    unique = list(dict.fromkeys(d.strip() for d in descriptions if d.strip()))
    if len(unique) <= 1:  # one extracted description: no summary call, the same cleaning
        text, changed = strip_chatter(unique[0] if unique else "")
        if changed and chatter is not None:
            chatter["description"] += 1
        return text
    listing = ranked_listing(name, descriptions,
                             settings.index.summary_max_tokens * LISTING_TOKENS_PER_SUMMARY_TOKEN,
                             settings.encoding)
    msgs = render("index/summarize_descriptions", name=name,
                  descriptions=listing,
                  max_words=int(settings.index.summary_max_tokens * WORDS_PER_TOKEN))
    try:
        text = await llm.complete(msgs, stage=stage,
                                  max_tokens=settings.index.summary_max_tokens)
    except LLMError as err:
        log.warning("summary of %r failed (%s): the descriptions joined instead", name, err)
        if failures is not None:
            failures.append(Failure.of(name, err))
        text = ""
    text, changed = strip_chatter(str(text))
    if changed and chatter is not None:
        chatter["summarize"] += 1
    # a sentence the descriptions it summarises do not support is the model's own: removed
    text, removed = supported(text, f"{name}\n{listing}")
    if removed and chatter is not None:
        chatter[UNSUPPORTED_SUMMARY] += removed
    # an empty or failed summary falls back to the joined descriptions: nothing is lost
    return text or truncate(_join(unique), settings.index.summary_max_tokens, settings.encoding)


async def summarize_descriptions(graph: Graph, llm: LLM, settings: Settings,
                                 progress: Progress = no_progress,
                                 failed: list[Failure] | None = None,
                                 chatter: Counter[str] | None = None) -> tuple[int, int]:
    """Entity and relationship descriptions from their text units' descriptions: one LLM
    summary where there are several (within ``summary_max_tokens``), unless they are few and
    short enough to be joined without a call (``joined_descriptions``). Returns (elements
    updated, of them joined without a call).
    An element whose summary failed keeps the joined descriptions and stays dirty (the next
    run retries it); its `Failure` (item: the element's name) is appended to ``failed``.
    Outputs that needed chatter stripping are counted in ``chatter`` (see summarize_texts)."""
    failed = [] if failed is None else failed
    entities = graph.run("index/dirty_entities")
    relationships = graph.run("index/dirty_relationships")
    task = "entities/relationships summarised"
    progress(task, 0, len(entities) + len(relationships))
    joined = 0

    async def describe(name: str, descriptions: list[str], mine: list[Failure],
                       evidence: list[Record]) -> str:
        nonlocal joined
        if settings.llm.small:  # the sources' sentences, no summary call (index/assemble)
            joined += 1
            return assembled(evidence, settings.index.summary_max_tokens, settings.encoding,
                             descriptions)
        text = joined_descriptions(settings, descriptions)
        if text is not None:
            joined += 1
            return text
        return await summarize_texts(llm, settings, name, descriptions, mine, chatter)

    async def entity(row: Record) -> Record:
        types = Counter(row["types"]).most_common(1)
        mine: list[Failure] = []  # per element: other summaries run meanwhile
        desc = await describe(row["name"], row["descriptions"], mine, row.get("evidence") or [])
        failed.extend(mine)
        progress(task, 1, None)
        return {"key": row["key"], "description": desc, "dirty": bool(mine),
                "type": types[0][0] if types else "unknown"}

    async def relationship(row: Record) -> Record:
        mine: list[Failure] = []
        desc = await describe(row["name"], row["descriptions"] or [], mine,
                              row.get("evidence") or [])
        failed.extend(mine)
        strengths = row["strengths"] or [5.0]
        progress(task, 1, None)
        return {"rid": row["rid"], "description": desc, "dirty": bool(mine),
                "strength": sum(strengths) / len(strengths)}

    ents = await asyncio.gather(*(entity(r) for r in entities))
    graph.write("index/set_entity_descriptions", ents)
    rels = await asyncio.gather(*(relationship(r) for r in relationships))
    graph.write("index/set_relationship_descriptions", rels)
    graph.run_batched("index/set_degrees")
    return len(ents) + len(rels), joined
