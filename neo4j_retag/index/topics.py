"""ReTAG topic augmentation (Kim et al. 2025 §3.2.1): topics and a corpus description, each
topic's subgraph (entities with a per-topic label), and each topic's own communities and
reports. Three modes (``TOPIC_MODE``):

- ``communities`` (default for LLM_CLASS=small): topics are groups of the general graph's
  communities, named and described from their evidence (index/topic_communities.py). Cost:
  a short title call per topic of several communities, and a title per topic community that
  repeats no general one.
- ``assign`` (default otherwise): topics mined with global queries at one level (the cheapest
  to read; one map pass serves both questions); the LLM labels each text unit with the topics
  it concerns, and a topic's subgraph is what those text units produced. Cost: the mining, and
  one call per text unit (index/topic_assign.py). An ingest keeps
  mined topics while the graph changes little (index/topic_basis.py).
- ``reextract`` (the paper's way): mined topics, then topic-conditioned extraction of every
  text unit; entities found again under a topic's focus join its subgraph (names found only
  there are not added to the general graph). Cost: #topics x #text units extraction calls.
"""

from __future__ import annotations

import asyncio
import logging

from ..citations import without_references
from ..config import Settings
from ..db import Graph, Record
from ..errors import Failure, InputError, LevelError, LLMError
from ..keys import entity_key
from ..llm import LLM
from ..model import GENERAL, Progress, TextUnit, no_progress
from ..prompts import fragment, render

# the one arrow from index to query: ReTAG mines its topics with GraphRAG's global search
from ..query.global_search import global_answers
from ..query.retrieval import levels
from ..stages import Stage
from . import topic_assign, topic_basis, topic_communities
from .communities import Clusterer
from .elements import summarize_texts
from .extract import extract_text_unit
from .gds import sessions_requirements, unique_name
from .lazy_index import index_method
from .lock import holding_index_lock
from .reports import build_reports
from .results import ReportCounts, TopicCount, TopicsResult, UncoveredCommunity
from .topic_names import MAX_TOPICS, Topic, TopicList, bullets, dedupe
from .topic_split import failed_item, split_oversized

log = logging.getLogger(__name__)
TOPIC_PROJECTION = "retag-topics"


async def _global(graph: Graph, llm: LLM, settings: Settings, level: int,
                  failed: list[Failure]) -> tuple[str, str]:
    """The topic and the corpus answers for topic mining, from one map pass over the level's
    reports (one reduce each: the reports' tokens paid once). An answer with any
    failed map batch or reduce is recorded as a failed item (topics mined from it would
    differ from a full one's)."""
    reduces = [(fragment("index/topics_question"), "a bulleted list of topics, 'name: "
                "description'"), (fragment("index/corpus_question"), "one paragraph")]
    try:
        answers = await global_answers(graph, llm, settings, fragment("index/mining_question"),
                                       reduces, level=level)
    except LLMError as err:
        failed_item(failed, f"topic questions L{level}", err)
        return "", ""
    tr = answers[0].trace
    if tr.map_parse_failures or tr.map_failures:
        failed_item(failed, f"topic questions L{level}",
                    f"{tr.map_parse_failures + tr.map_failures} of {tr.map_batches} map batches "
                    "failed")
    texts = []
    for a, item in zip(answers, ("topic question", "corpus question"), strict=True):
        if a.trace.failures:
            failed_item(failed, f"{item} L{level}", "; ".join(f.line() for f in a.trace.failures))
        if a.trace.no_answer is not None:
            # the no-answer sentence (a refused or empty reduce) is no data: never stored as
            # the corpus description or mined for topics; the next build asks again
            failed_item(failed, f"{item} L{level}", f"no answer: {a.trace.no_answer}")
            texts.append("")
            continue
        # the answers become topic descriptions and the corpus description (prompt text): the
        # reports they cite are of no use there
        texts.append(without_references(a.answer))
    return texts[0], texts[1]


def mining_level(graph: Graph) -> int | None:
    """The level topic mining reads: the one whose reports are shortest in all - the root
    (GraphRAG's C0) on every corpus measured. Every level covers every entity (carried down),
    so each answers "what does this corpus hold"; the root's few broad reports tell it in the
    fewest tokens (BBC-200: 53 k tokens at the root against 69 k-144 k at levels 1-4; Edge et
    al. 2024 found C0 answers global questions at a fraction of the leaf level's tokens).
    docs/indexing.md."""
    rows = graph.run("index/level_report_sizes")
    return min(rows, key=lambda r: (r["chars"], r["level"]))["level"] if rows else None


async def mine_topics(graph: Graph, llm: LLM, settings: Settings, max_topics: int,
                      failed: list[Failure] | None = None, level: int | None = None
                      ) -> tuple[list[Topic], str]:
    """Topics and a corpus description from global queries (ReTAG §3.2.1) at one level
    (``level``, else :func:`mining_level`), one map pass for both questions. Items that
    failed (the map, a reduce, the topic list, the corpus summary) are appended to
    ``failed``; what the others gave is still used."""
    failed = [] if failed is None else failed
    level = mining_level(graph) if level is None else level
    topic_answer, description = (await _global(graph, llm, settings, level, failed)
                                 if level is not None else ("", ""))
    topic_answers = [topic_answer] if level is not None else []
    descriptions = [description] if level is not None else []
    joined = "\n\n".join(a for a in topic_answers if a)
    listed: list[Topic] = []
    try:  # no topic answer (failed, refused): nothing to list, no call paid for it
        listed = (await llm.structured(
            render("index/topics_list", answers=joined, max_topics=max_topics), TopicList,
            stage=Stage.TOPICS)).topics if joined else []
    except LLMError as err:
        failed_item(failed, "topic list (topics from the answers' bullet lines meanwhile)", err)
    topics = dedupe(listed + [t for a in topic_answers for t in bullets(a)], max_topics)
    summary_failed: list[Failure] = []
    corpus = await summarize_texts(llm, settings, "the corpus", descriptions, summary_failed,
                                   stage=Stage.TOPIC_SUMMARY)
    for f in summary_failed:  # the descriptions joined stand in meanwhile
        failed_item(failed, "corpus description", f"its summary failed: descriptions joined "
                                               f"({f.reason})")
    return topics, corpus


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
            failed_item(failed, f"topic re-extraction of {unit.id} for {topic.name!r}", err)
        progress("topic re-extraction", 1, None)

    units = _text_units(graph)
    await asyncio.gather(*(one(u, t) for u in units for t in topics))
    graph.write("index/label_topic_entities", rows)
    return len(rows)


def _text_units(graph: Graph) -> list[TextUnit]:
    return [TextUnit.model_validate(r) for r in graph.run("index/chunks_for_topics")]


MODES = ("communities", "assign", "reextract")


@holding_index_lock("topic build")
async def build_topics(graph: Graph, llm: LLM, settings: Settings, *, mode: str | None = None,
                       max_topics: int = MAX_TOPICS, progress: Progress = no_progress,
                       incremental: bool = False) -> TopicsResult:
    """Build topics, their subgraphs, communities and reports; ``mode`` (default: TOPIC_MODE,
    ``Settings.topic_build_mode``) says how: ``communities`` groups the general graph's
    communities (index/topic_communities.py: no mining, no assignment), ``assign`` and
    ``reextract`` mine topics by global search and build their subgraphs by labelling text
    units or by re-extraction. Replaces previous topics; the general graph and its communities
    are untouched. With ``incremental`` (an ingest), mined topics are kept when the reports
    they were mined from did not change materially, and only text units not labelled yet are
    labelled (index/topic_basis.py: the rule); topics of communities are always built again
    (they cost no mining). Topics without a subgraph are dropped (``dropped_topics``); the
    coverage check lists the root communities of the general graph none of whose entities is
    in a topic (``uncovered_root_communities``: id, title, size). Raises InputError for an
    unknown ``mode`` and LevelError when the general graph has no reports yet.

    ``failed`` lists the items that failed. With any, topics stay marked stale, so the next
    `ingest` / `topics build` builds them again (the LLM cache makes what succeeded free).
    A GDS_MODE=sessions setting that is missing is a ConfigError before any LLM call."""
    mode = mode or settings.topic_build_mode
    if mode not in MODES:
        raise InputError(f"unknown topic mode {mode!r}: use {', '.join(MODES)}")
    if settings.gds.mode == "sessions":
        sessions_requirements(settings)
    if index_method(graph) == "lazy":  # no entities to label, no reports until asked
        raise InputError("topics are not built on a lazy index: `ask --method retag` answers "
                         "from the general graph; for topics, `neo4j-retag reset` and `ingest` "
                         "without --lazy")
    if not levels(graph, GENERAL):
        raise LevelError("the graph has no community reports: run `neo4j-retag ingest` first")
    if mode == "communities":
        return await _from_communities(graph, llm, settings, max_topics, progress)
    failed: list[Failure] = []
    now = topic_basis.current(graph, mining_level(graph))
    last = topic_basis.stored(graph)
    keep, why = (topic_basis.keep_reason(last, now, mode, max_topics,
                                         settings.index.topic_remine_share)
                 if incremental else (False, "topics mined: a full topic build"))
    log.info("topics: %s", why)
    if keep:
        topics, corpus = [t for t, _ in last.topics], last.corpus
        labels = [lb for _, lb in last.topics]
        graph.run_script("index/clear_topic_communities")
        units = [TextUnit.model_validate(r) for r in graph.run("index/chunks_to_assign")]
    else:
        topics, corpus = await mine_topics(graph, llm, settings, max_topics, failed, now.level)
        if not topics:  # mining gave nothing usable: what is stored stays, marked for rebuild
            log.warning("topic mining gave no topic: the stored topics are kept; the next "
                        "`ingest` / `topics build` mines again")
            graph.run("index/set_index_meta", props={"topics_dirty": True})
            return TopicsResult(mode=mode, mined=False,
                                why="topic mining failed: stored topics kept",
                                failed=failed or [Failure.of("topic list", "no topic mined")])
        mined_ok = not failed
        graph.run_script("index/clear_topics")
        labels = [f"Topic{i}" for i in range(len(topics))]
        graph.run("index/create_topics", corpus_description=corpus, topics=[
            {"name": t.name, "description": t.description, "label": lb}
            for t, lb in zip(topics, labels, strict=True)])
        topic_basis.save(graph, now if mined_ok else None, mode, max_topics)
        units = _text_units(graph)
    labelled = 0
    split: list[str] = []
    unsplit: list[str] = []
    if topics:
        if mode == "assign":
            await topic_assign.assign_text_units(graph, llm, settings, topics, progress, failed,
                                                 units)
            graph.run("index/label_topic_entities_from_chunks")
            labelled = len(units)
            if not keep:  # kept topics were split when they were mined
                topics, labels, split, unsplit = await split_oversized(
                    graph, llm, settings, topics, labels, now.level or 0, progress, failed)
        else:
            await reextract_text_units(graph, llm, settings, topics, progress, failed)
    out = TopicsResult(mode=mode, split_topics=split, unsplit_topics=unsplit,
                       corpus_description=corpus, mined=not keep, why=why,
                       text_units_labelled=labelled, failed=failed)
    return await _subgraphs(graph, llm, settings, topics, labels, progress, out)


async def _from_communities(graph: Graph, llm: LLM, settings: Settings, max_topics: int,
                            progress: Progress) -> TopicsResult:
    """Topics of the general graph's communities (index/topic_communities.py), then their
    subgraphs' communities and reports."""
    built = await topic_communities.community_topics(graph, llm, settings, max_topics)
    plan = built.plan
    why = (f"{len(built.topics)} topics of {sum(len(c) for c in built.communities)} general "
           f"communities ({len(plan.too_small)} under TOPIC_MIN_ENTITIES and "
           f"{len(plan.unattached)} sharing no text unit with a topic left out; "
           f"{built.titles} topic names written, {built.titles_refused} refused)")
    log.info("topics: %s", why)
    out = TopicsResult(mode="communities", corpus_description=built.corpus, why=why,
                       topic_titles=built.titles, topic_titles_refused=built.titles_refused,
                       topic_communities={t.name: ids for t, ids in
                                          zip(built.topics, built.communities, strict=True)})
    return await _subgraphs(graph, llm, settings, built.topics, built.labels, progress, out)


async def _subgraphs(graph: Graph, llm: LLM, settings: Settings, topics: list[Topic],
                     labels: list[str], progress: Progress, out: TopicsResult) -> TopicsResult:
    """Each topic's subgraph (the entities with its label) clustered in one labelled
    projection and reported; ``out`` completed with the topics kept and dropped, the reports,
    the counts and the coverage check."""
    failed = out.failed
    # one projection holding every topic label; Leiden runs per topic through nodeLabels
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
                failed_item(failed, f"community reports of {label}",
                            f"{reports[label].failed} failed: " + "; ".join(
                                f.line() for f in reports[label].failures))
    graph.run("index/set_index_meta", props={"topics_dirty": bool(failed),
                                             "topics_mode": out.mode})
    if not failed:
        graph.run_batched("index/prune_topic_archive")
    uncovered = graph.run("index/uncovered_roots", labels=labels)
    if uncovered:
        log.warning("%d root communities contribute to no topic: %s", len(uncovered),
                    ", ".join(f"{r['id']} ({r['title']})" for r in uncovered))
    out.topics = [t for t in topics if t.name not in dropped]
    out.dropped_topics = dropped
    out.reports = reports
    out.counts = [TopicCount.model_validate(r) for r in graph.run("index/topic_counts")]
    out.uncovered_root_communities = [UncoveredCommunity.model_validate(r) for r in uncovered]
    return out
