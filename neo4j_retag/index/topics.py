"""ReTAG topic augmentation (Kim et al. 2025 §3.2.1): mine topics and a corpus description
with global queries at one level (the cheapest to read), build each topic's subgraph
(entities with a per-topic label), and give each topic its own communities and reports.

Topic subgraphs, two ways:
- ``assign`` (default): the LLM labels each text unit with the topics it concerns; a topic's
  subgraph is what those text units produced. Cost: one call per text unit.
- ``reextract`` (the paper's way): topic-conditioned extraction of every text unit; entities
  found again under a topic's focus join its subgraph (names found only there are not added
  to the general graph). Cost: #topics x #text units extraction calls.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import re
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model, field_validator

from ..config import Settings
from ..db import Graph, Record
from ..errors import InputError, LevelError, LLMError
from ..llm import LLM
from ..model import GENERAL, Progress, entity_key, no_progress
from ..prompts import fragment, render

# the one arrow from index to query: ReTAG mines its topics with GraphRAG's global search
from ..query.global_search import global_answer
from ..query.retrieval import levels
from .communities import Clusterer
from .elements import summarize_texts
from .extract import extract_chunk
from .gds import unique_name
from .lock import holding_index_lock
from .reports import build_reports

log = logging.getLogger(__name__)
TOPIC_PROJECTION = "retag-topics"
# names a small model copies from the prompt's JSON example instead of answering
PLACEHOLDERS = {"...", "short topic name", "topic name", "name", "topic"}


class Topic(BaseModel):
    name: str = Field(json_schema_extra={"maxLength": 60})
    description: str = ""

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v: Any) -> str:
        return " ".join(str(v or "").split()).strip(" -*#:.")[:80]


class TopicList(BaseModel):
    # at least one topic in the schema only: under a grammar a small model answers [] otherwise
    topics: list[Topic] = Field([], json_schema_extra={"minItems": 1})

    @field_validator("topics", mode="before")
    @classmethod
    def _items(cls, v: Any) -> Any:
        return [{"name": t} if isinstance(t, str) else t for t in (v or [])]


# words that carry no topic meaning in a topic name ("The Role of the Harbour Plan")
STOPWORDS = frozenset({
    "a", "an", "and", "the", "of", "in", "on", "for", "to", "with", "by", "at", "from", "its",
    "their", "his", "her", "about", "as", "or", "vs", "versus", "role", "impact", "issues",
    "issue", "topic", "topics", "theme", "themes", "story", "stories", "news", "community",
    "communities", "local", "town", "city"})


def content_words(name: str) -> frozenset[str]:
    """The meaning-bearing words of a topic name, lower-cased, a plural 's' dropped."""
    words = re.findall(r"[a-z0-9]+", name.casefold())
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss")
                     else w for w in words if w not in STOPWORDS)


def same_topic(a: str, b: str, cutoff: float = 0.85) -> bool:
    """Whether two topic names are near-duplicates, by spelling (string similarity >=
    ``cutoff``) or by meaning-bearing words: one name's content words all within the other's
    with at least two shared ("Lantern Festival" ~ "Lantern Festival Community"), or a
    Jaccard overlap of at least 0.75. A single shared word ("Millbrook Council" vs "Millbrook
    Rovers") is not enough."""
    if difflib.SequenceMatcher(None, a.casefold(), b.casefold()).ratio() >= cutoff:
        return True
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return False
    shared = len(wa & wb)
    contained = shared == min(len(wa), len(wb))
    return (contained and (shared >= 2 or wa == wb)) or shared / len(wa | wb) >= 0.75


def dedupe(topics: list[Topic], max_topics: int, cutoff: float = 0.85) -> list[Topic]:
    """Union of topics with near-duplicates merged (:func:`same_topic`), the first kept (the
    listing is ranked); placeholder names a small model copies from the prompt dropped."""
    out: list[Topic] = []
    for t in topics:
        if not t.name or t.name.casefold() in PLACEHOLDERS or "<" in t.name:
            continue
        if any(same_topic(t.name, o.name, cutoff) for o in out):
            continue
        out.append(t)
    return out[:max_topics]


def bullets(text: str) -> list[Topic]:
    """Fallback: topics from an answer's bullet or numbered lines ("name: description")."""
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*(?:[-*\u2022]|\d+[.)])\s+(.+)", line)
        if m:
            name, _, desc = m.group(1).replace("**", "").partition(":")
            out.append(Topic(name=name, description=desc.strip()))
    return out


def _failure(failed: list[dict[str, str]], item: str, err: Exception | str) -> None:
    reason = getattr(err, "reason", None) or (
        "llm_error" if isinstance(err, Exception) else "incomplete")
    log.warning("topic item %s failed (%s): %s", item, reason, err)
    failed.append({"item": item, "reason": reason, "error": str(err)[:300]})


async def _global(graph: Graph, llm: LLM, settings: Settings, question: str, level: int,
                  response_type: str, item: str, failed: list[dict[str, str]]) -> str:
    """A global answer for topic mining; an answer with any failed map batch or reduce is
    recorded as a failed item (topics mined from it would differ from a full one's)."""
    try:
        a = await global_answer(graph, llm, settings, question, level=level,
                                response_type=response_type)
    except LLMError as err:
        _failure(failed, item, err)
        return ""
    tr = a.trace
    if tr.map_parse_failures or tr.map_failures or any(
            n.startswith("reduce failed") for n in tr.notes):
        _failure(failed, item, f"{tr.map_parse_failures + tr.map_failures} of "
                               f"{tr.map_batches} map batches failed; notes: {tr.notes}")
    return a.answer


def mining_level(graph: Graph) -> int | None:
    """The level topic mining reads: the one whose reports are shortest in all. Every level
    covers every entity (carried down); the root's few large communities usually tell the
    corpus in the fewest tokens (README, "What a user pays": every level cost 38 %)."""
    rows = graph.run("index/level_report_sizes")
    return min(rows, key=lambda r: (r["chars"], r["level"]))["level"] if rows else None


async def mine_topics(graph: Graph, llm: LLM, settings: Settings, max_topics: int,
                      failed: list[dict[str, str]] | None = None) -> tuple[list[Topic], str]:
    """Topics and a corpus description from global queries (ReTAG §3.2.1) at one level
    (:func:`mining_level`). Failed items are appended to ``failed`` ({item, reason, error});
    what the others gave is still used."""
    failed = [] if failed is None else failed
    q_topics = fragment(settings.prompts_dir, "index/topics_question")
    q_corpus = fragment(settings.prompts_dir, "index/corpus_question")
    level = mining_level(graph)
    topic_answers = [await _global(graph, llm, settings, q_topics, level, "a bulleted list of "
                                   "topics, 'name: description'", f"topic question L{level}",
                                   failed)] if level is not None else []
    descriptions = [await _global(graph, llm, settings, q_corpus, level, "one paragraph",
                                  f"corpus question L{level}", failed)] if level is not None else []
    joined = "\n\n".join(topic_answers)
    try:
        listed = (await llm.structured(
            render(settings.prompts_dir, "index/topics_list", answers=joined,
                   max_topics=max_topics), TopicList, stage="topics")).topics
    except LLMError as err:
        _failure(failed, "topic list (topics from the answers' bullet lines meanwhile)", err)
        listed = []
    topics = dedupe(listed + [t for a in topic_answers for t in bullets(a)], max_topics)
    summary_failed: list[str] = []
    corpus = await summarize_texts(llm, settings, "the corpus", descriptions, summary_failed,
                                   stage="topic_summary")
    if summary_failed:
        _failure(failed, "corpus description", "its summary failed: descriptions joined")
    return topics, corpus


async def assign_chunks(graph: Graph, llm: LLM, settings: Settings, topics: list[Topic],
                        progress: Progress, failed: list[dict[str, str]] | None = None) -> int:
    """Label each text unit with its topics (a JSON-schema enum of the topic names); a text
    unit whose labelling failed is appended to ``failed``."""
    failed = [] if failed is None else failed
    names = tuple(t.name for t in topics)
    model = create_model("TopicLabels", topics=(list[Literal[names]], []))  # type: ignore[valid-type]
    listing = "\n".join(f"- {t.name}: {t.description}" for t in topics)
    rows: list[Record] = []

    async def one(chunk: Record) -> None:
        msgs = render(settings.prompts_dir, "index/assign_topics", topics=listing,
                      text=chunk["text"])
        try:
            labels = await llm.structured(msgs, model, stage="topic_assign", max_tokens=100)
            rows.extend({"chunk_id": chunk["id"], "topic": n}
                        for n in dict.fromkeys(labels.topics))  # type: ignore[attr-defined]
        except LLMError as err:
            # an unlabelled text unit stays in the general graph only (until the retry)
            _failure(failed, f"topic labels of text unit {chunk['id']}", err)
        progress("topic assign", 1, None)

    await asyncio.gather(*(one(c) for c in graph.run("index/chunks_for_topics")))
    graph.write("index/label_topic_chunks", rows)
    return len(rows)


async def reextract_chunks(graph: Graph, llm: LLM, settings: Settings, topics: list[Topic],
                           progress: Progress, failed: list[dict[str, str]] | None = None) -> int:
    """Topic-conditioned extraction over every text unit (the paper's way); failures are
    appended to ``failed``."""
    failed = [] if failed is None else failed
    existing = {r["key"] for r in graph.run("index/entity_keys", label="Entity")}
    rows: list[Record] = []

    async def one(chunk: Record, topic: Topic) -> None:
        try:
            ex = await extract_chunk(llm, settings, chunk["id"], chunk["text"], glean=0,
                                     claims=False, focus=f"{topic.name} ({topic.description})")
            rows.extend({"topic": topic.name, "key": e["key"]} for e in ex.entities
                        if entity_key(e["name"]) in existing)
        except LLMError as err:
            _failure(failed, f"topic re-extraction of {chunk['id']} for {topic.name!r}", err)
        progress("topic re-extraction", 1, None)

    chunks = graph.run("index/chunks_for_topics")
    await asyncio.gather(*(one(c, t) for c in chunks for t in topics))
    graph.write("index/label_topic_entities", rows)
    return len(rows)


@holding_index_lock("topic build")
async def build_topics(graph: Graph, llm: LLM, settings: Settings, *, mode: str = "assign",
                       max_topics: int = 8,
                       progress: Progress = no_progress) -> dict[str, Any]:
    """Mine topics, build topic subgraphs, their communities and reports. Replaces previous
    topics; the general graph and its communities are untouched. Topics without a subgraph
    are dropped (``dropped_topics``); the coverage check lists the root communities of the
    general graph none of whose entities is in a topic (``uncovered_root_communities``: id,
    title, size). Raises InputError for an unknown ``mode`` and LevelError when the general
    graph has no reports yet.

    Returns {topics, dropped_topics, corpus_description, reports, counts,
    uncovered_root_communities, failed}; ``failed`` lists the items that failed ({item,
    reason, error}). With any, topics stay marked stale, so the next `ingest` / `topics build`
    builds them again (the LLM cache makes what succeeded free)."""
    if mode not in ("assign", "reextract"):
        raise InputError(f"unknown topic subgraph mode {mode!r}: use assign or reextract")
    if not levels(graph, GENERAL):
        raise LevelError("the graph has no community reports: run `neo4j-retag ingest` first")
    failed: list[dict[str, str]] = []
    topics, corpus = await mine_topics(graph, llm, settings, max_topics, failed)
    graph.run_script("index/clear_topics")
    graph.run("index/create_topics", corpus_description=corpus, topics=[
        {"name": t.name, "description": t.description, "label": f"Topic{i}"}
        for i, t in enumerate(topics)])
    if topics:
        if mode == "assign":
            await assign_chunks(graph, llm, settings, topics, progress, failed)
        else:
            await reextract_chunks(graph, llm, settings, topics, progress, failed)
    # one projection holding every topic label; Leiden runs per topic through nodeLabels
    labels = [f"Topic{i}" for i in range(len(topics))]
    # a topic no text unit was assigned to has no subgraph (GDS rejects labels without nodes):
    # it is dropped, so that the classifier is never offered a topic with nothing to retrieve
    labels = [lb for lb in labels if graph.run("index/graph_counts", label=lb)[0]["nodes"]]
    dropped = [r["name"] for r in graph.run("index/drop_topics", keep=labels)]
    for name in dropped:
        log.warning("topic %r has no subgraph (no text unit concerns it): dropped", name)
    clusterer = Clusterer(graph, settings)
    reports: dict[str, dict[str, int]] = {}
    if labels:
        name = unique_name(TOPIC_PROJECTION)  # unique per run: concurrent processes coexist
        try:
            projection, _ = clusterer.gds.project(name, labels)
            for label in labels:
                roots = clusterer.hierarchy(label, label, projection=projection)
                clusterer.write(roots, label)
        finally:
            clusterer.gds.drop(name)
        for label in labels:
            reports[label] = await build_reports(graph, llm, settings, label, progress)
            if reports[label]["failed"]:
                _failure(failed, f"community reports of {label}",
                         f"{reports[label]['failed']} failed")
    graph.run("index/set_index_meta", props={"topics_dirty": bool(failed)})
    if not failed:
        graph.run("index/prune_topic_archive")
    uncovered = graph.run("index/uncovered_roots", labels=labels)
    if uncovered:
        log.warning("%d root communities contribute to no topic: %s", len(uncovered),
                    ", ".join(f"{r['id']} ({r['title']})" for r in uncovered))
    return {"topics": [t.model_dump() for t in topics if t.name not in dropped],
            "dropped_topics": dropped, "corpus_description": corpus, "reports": reports,
            "counts": graph.run("index/topic_counts"), "uncovered_root_communities": uncovered,
            "failed": failed}
