"""ReTAG topic augmentation (Kim et al. 2025 §3.2.1): mine topics and a corpus description
with global queries at one level (the cheapest to read), build each topic's subgraph
(entities with a per-topic label), and give each topic its own communities and reports.

Topic subgraphs, two ways:
- ``assign`` (default): the LLM labels each text unit with the topics it concerns; a topic's
  subgraph is what those text units produced. Cost: one call per ``TOPIC_ASSIGN_BATCH`` text
  units (index/topic_assign.py).
- ``reextract`` (the paper's way): topic-conditioned extraction of every text unit; entities
  found again under a topic's focus join its subgraph (names found only there are not added
  to the general graph). Cost: #topics x #text units extraction calls.
"""

from __future__ import annotations

import asyncio
import logging

from ..config import Settings
from ..db import Graph, Record
from ..errors import InputError, LevelError, LLMError
from ..keys import entity_key
from ..llm import LLM
from ..model import GENERAL, Failure, Progress, TextUnit, no_progress
from ..prompts import fragment, render

# the one arrow from index to query: ReTAG mines its topics with GraphRAG's global search
from ..query.global_search import global_answer
from ..query.retrieval import levels
from . import topic_assign
from .communities import Clusterer
from .elements import summarize_texts
from .extract import extract_text_unit
from .gds import sessions_requirements, unique_name
from .lazy import index_method
from .lock import holding_index_lock
from .reports import build_reports
from .results import ReportCounts, TopicCount, TopicsResult, UncoveredCommunity
from .topic_names import Topic, TopicList, bullets, dedupe

log = logging.getLogger(__name__)
TOPIC_PROJECTION = "retag-topics"


def _failure(failed: list[Failure], item: str, err: Exception | str) -> None:
    failure = Failure.of(item, err)
    log.warning("topic item %s failed (%s): %s", item, failure.reason, err)
    failed.append(failure)


async def _global(graph: Graph, llm: LLM, settings: Settings, question: str, level: int,
                  response_type: str, item: str, failed: list[Failure]) -> str:
    """A global answer for topic mining; an answer with any failed map batch or reduce is
    recorded as a failed item (topics mined from it would differ from a full one's)."""
    try:
        a = await global_answer(graph, llm, settings, question, level=level,
                                response_type=response_type)
    except LLMError as err:
        _failure(failed, item, err)
        return ""
    tr = a.trace
    if tr.map_parse_failures or tr.map_failures or tr.failures:
        _failure(failed, item, f"{tr.map_parse_failures + tr.map_failures} of "
                               f"{tr.map_batches} map batches failed; "
                               f"{'; '.join(f.line() for f in tr.failures) or 'reduce done'}")
    return a.answer


def mining_level(graph: Graph) -> int | None:
    """The level topic mining reads: the one whose reports are shortest in all. Every level
    covers every entity (carried down); the root's few large communities usually tell the
    corpus in the fewest tokens (README, "What a user pays": every level cost 38 %)."""
    rows = graph.run("index/level_report_sizes")
    return min(rows, key=lambda r: (r["chars"], r["level"]))["level"] if rows else None


async def mine_topics(graph: Graph, llm: LLM, settings: Settings, max_topics: int,
                      failed: list[Failure] | None = None) -> tuple[list[Topic], str]:
    """Topics and a corpus description from global queries (ReTAG §3.2.1) at one level
    (:func:`mining_level`). Items that failed (a global answer, the topic list, the corpus
    summary) are appended to ``failed``; what the others gave is still used."""
    failed = [] if failed is None else failed
    q_topics = fragment("index/topics_question")
    q_corpus = fragment("index/corpus_question")
    level = mining_level(graph)
    topic_answers = [await _global(graph, llm, settings, q_topics, level, "a bulleted list of "
                                   "topics, 'name: description'", f"topic question L{level}",
                                   failed)] if level is not None else []
    descriptions = [await _global(graph, llm, settings, q_corpus, level, "one paragraph",
                                  f"corpus question L{level}", failed)] if level is not None else []
    joined = "\n\n".join(topic_answers)
    try:
        listed = (await llm.structured(
            render("index/topics_list", answers=joined,
                   max_topics=max_topics), TopicList, stage="topics")).topics
    except LLMError as err:
        _failure(failed, "topic list (topics from the answers' bullet lines meanwhile)", err)
        listed = []
    topics = dedupe(listed + [t for a in topic_answers for t in bullets(a)], max_topics)
    summary_failed: list[Failure] = []
    corpus = await summarize_texts(llm, settings, "the corpus", descriptions, summary_failed,
                                   stage="topic_summary")
    for f in summary_failed:  # the descriptions joined stand in meanwhile
        _failure(failed, "corpus description", f"its summary failed: descriptions joined "
                                               f"({f.reason})")
    return topics, corpus


async def assign_text_units(graph: Graph, llm: LLM, settings: Settings, topics: list[Topic],
                            progress: Progress, failed: list[Failure] | None = None) -> int:
    """Label each text unit with its topics (``index.topic_assign_batch`` text units per call,
    index/topic_assign.py); a text unit whose labelling failed is appended to ``failed``."""
    return await topic_assign.assign_text_units(
        graph, llm, settings, topics, progress, [] if failed is None else failed,
        _text_units(graph))


async def reextract_text_units(graph: Graph, llm: LLM, settings: Settings,
                               topics: list[Topic], progress: Progress,
                               failed: list[Failure] | None = None) -> int:
    """Topic-conditioned extraction over every text unit (the paper's way); failures are
    appended to ``failed``."""
    failed = [] if failed is None else failed
    existing = {r["key"] for r in graph.run("index/entity_keys", label="Entity")}
    rows: list[Record] = []

    async def one(unit: TextUnit, topic: Topic) -> None:
        try:
            ex = await extract_text_unit(llm, settings, unit, glean=0, claims=False,
                                         focus=f"{topic.name} ({topic.description})")
            rows.extend({"topic": topic.name, "key": e["key"]} for e in ex.entities
                        if entity_key(e["name"]) in existing)
        except LLMError as err:
            _failure(failed, f"topic re-extraction of {unit.id} for {topic.name!r}", err)
        progress("topic re-extraction", 1, None)

    units = _text_units(graph)
    await asyncio.gather(*(one(u, t) for u in units for t in topics))
    graph.write("index/label_topic_entities", rows)
    return len(rows)


def _text_units(graph: Graph) -> list[TextUnit]:
    return [TextUnit.model_validate(r) for r in graph.run("index/chunks_for_topics")]


@holding_index_lock("topic build")
async def build_topics(graph: Graph, llm: LLM, settings: Settings, *, mode: str = "assign",
                       max_topics: int = 8,
                       progress: Progress = no_progress) -> TopicsResult:
    """Mine topics, build topic subgraphs, their communities and reports. Replaces previous
    topics; the general graph and its communities are untouched. Topics without a subgraph
    are dropped (``dropped_topics``); the coverage check lists the root communities of the
    general graph none of whose entities is in a topic (``uncovered_root_communities``: id,
    title, size). Raises InputError for an unknown ``mode`` and LevelError when the general
    graph has no reports yet.

    ``failed`` lists the items that failed. With any, topics stay marked stale, so the next
    `ingest` / `topics build` builds them again (the LLM cache makes what succeeded free).
    A GDS_MODE=sessions setting that is missing is a ConfigError before any LLM call."""
    if mode not in ("assign", "reextract"):
        raise InputError(f"unknown topic subgraph mode {mode!r}: use assign or reextract")
    if settings.gds.mode == "sessions":
        sessions_requirements(settings)
    if index_method(graph) == "lazy":  # no entities to label, no reports until asked
        raise InputError("topics are not built on a lazy index: `ask --method retag` answers "
                         "from the general graph; for topics, `neo4j-retag reset` and `ingest` "
                         "without --lazy")
    if not levels(graph, GENERAL):
        raise LevelError("the graph has no community reports: run `neo4j-retag ingest` first")
    failed: list[Failure] = []
    topics, corpus = await mine_topics(graph, llm, settings, max_topics, failed)
    graph.run_script("index/clear_topics")
    graph.run("index/create_topics", corpus_description=corpus, topics=[
        {"name": t.name, "description": t.description, "label": f"Topic{i}"}
        for i, t in enumerate(topics)])
    if topics:
        if mode == "assign":
            await assign_text_units(graph, llm, settings, topics, progress, failed)
        else:
            await reextract_text_units(graph, llm, settings, topics, progress, failed)
    # one projection holding every topic label; Leiden runs per topic through nodeLabels
    labels = [f"Topic{i}" for i in range(len(topics))]
    # a topic no text unit was assigned to has no subgraph (GDS rejects labels without nodes):
    # it is dropped, so that the classifier is never offered a topic with nothing to retrieve
    labels = [lb for lb in labels if graph.run("index/graph_counts", label=lb)[0]["nodes"]]
    dropped = [r["name"] for r in graph.run("index/drop_topics", keep=labels)]
    for name in dropped:
        log.warning("topic %r has no subgraph (no text unit concerns it): dropped", name)
    clusterer = Clusterer(graph, settings)
    reports: dict[str, ReportCounts] = {}
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
            if reports[label].failed:
                _failure(failed, f"community reports of {label}",
                         f"{reports[label].failed} failed: " + "; ".join(
                             f.line() for f in reports[label].failures))
    graph.run("index/set_index_meta", props={"topics_dirty": bool(failed)})
    if not failed:
        graph.run("index/prune_topic_archive")
    uncovered = graph.run("index/uncovered_roots", labels=labels)
    if uncovered:
        log.warning("%d root communities contribute to no topic: %s", len(uncovered),
                    ", ".join(f"{r['id']} ({r['title']})" for r in uncovered))
    return TopicsResult(
        topics=[t for t in topics if t.name not in dropped], dropped_topics=dropped,
        corpus_description=corpus, reports=reports,
        counts=[TopicCount.model_validate(r) for r in graph.run("index/topic_counts")],
        uncovered_root_communities=[UncoveredCommunity.model_validate(r) for r in uncovered],
        failed=failed)
