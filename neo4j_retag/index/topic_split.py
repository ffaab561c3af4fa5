"""A topic that holds most of the graph is not a topic: it is split at build time.

ReTAG mines topics so that a question reads one topic's reports instead of the whole graph's
(Kim et al. 2025 §3.2.1); a topic whose subgraph holds most of the entities narrows nothing
(measured on Christmas Carol: every question went to the topic holding 76 % of them). After
topic assignment, each topic over ``RETAG_TOPIC_MAX_SHARE`` of the entities is mined again
into narrower topics from the general graph's reports of the communities holding most of its
entities, and its text units are assigned again among those (``assign`` mode only).

One round: a narrower topic still over the share stays (the query side does not offer it,
with a trace note). Cost per split topic: one ``topic_split`` call and the assignment calls of
its text units (``topic_assign.ASSIGN_BATCH`` per call). A split call that fails is a failed
item (the topic stays, the next build tries again); a reply with fewer than two narrower topics
is an answer: the topic stays, listed as unsplit.
"""

from __future__ import annotations

import logging

from ..config import Settings
from ..db import Graph
from ..errors import Failure, LLMError
from ..llm import LLM
from ..model import Progress, TextUnit
from ..prompts import render
from ..stages import Stage
from . import topic_assign
from .topic_names import Topic, TopicList, dedupe, same_topic

log = logging.getLogger(__name__)
MIN_NARROWER, MAX_NARROWER = 2, 4  # narrower topics one split asks for
CONTEXT_REPORTS = 8  # reports (title and summary) that tell the model what the topic covers


def failed_item(failed: list[Failure], item: str, err: Exception | str) -> None:
    """A topic build's item failed: logged and listed in ``failed`` (topics stay dirty, the
    next build tries it again)."""
    failure = Failure.of(item, err)
    log.warning("topic item %s failed (%s): %s", item, failure.reason, err)
    failed.append(failure)


def oversized(graph: Graph, settings: Settings) -> list[dict]:
    """The topics whose subgraph holds more than RETAG_TOPIC_MAX_SHARE of the entities and
    that have at least two text units to share out (rows of index/topic_shares)."""
    cap = settings.query.retag_topic_max_share
    return [r for r in graph.run("index/topic_shares") if r["share"] > cap and r["units"] >= 2]


async def split_oversized(graph: Graph, llm: LLM, settings: Settings, topics: list[Topic],
                          labels: list[str], level: int, progress: Progress,
                          failed: list[Failure]
                          ) -> tuple[list[Topic], list[str], list[str], list[str]]:
    """Split every oversized topic (see module doc): returns the topics and their labels after
    the splits, the names of the topics split, and of those the model gave fewer than two
    narrower topics for (they stay: logged; the query side does not offer them). ``level`` is
    the general graph's level whose reports describe a topic (the mining level). Failures are
    appended to ``failed``."""
    split: list[str] = []
    unsplit: list[str] = []
    if not settings.index.topic_split:
        return topics, labels, split, unsplit
    for row in oversized(graph, settings):
        name = row["name"]
        reports = graph.run("index/topic_context", label=row["label"], level=level,
                            limit=CONTEXT_REPORTS)
        listing = "\n".join(f"- {r['title']}: {r['summary']}" for r in reports)
        msgs = render("index/split_topic", name=name, description=row["description"] or "",
                      reports=listing or "(none)", min_topics=str(MIN_NARROWER),
                      max_topics=str(MAX_NARROWER))
        try:
            reply = await llm.structured(msgs, TopicList, stage=Stage.TOPIC_SPLIT)
        except LLMError as err:
            failed_item(failed, f"split of topic {name!r}", err)
            continue
        others = [t.name for t in topics if t.name != name]
        narrower = dedupe([t for t in reply.topics  # type: ignore[attr-defined]
                           if not any(same_topic(t.name, o) for o in [name, *others])],
                          MAX_NARROWER)
        if len(narrower) < MIN_NARROWER:  # an answer, not a fault: asking again gives it again
            log.warning("topic %r holds %.0f%% of the entities and the model gave %d narrower "
                        "topic(s), %d needed: it stays, and is not offered to the classifier",
                        name, 100 * row["share"], len(narrower), MIN_NARROWER)
            unsplit.append(name)
            continue
        units = [TextUnit.model_validate(r) for r in graph.run("index/topic_units", name=name)]
        first = 1 + max((int(lb.removeprefix("Topic")) for lb in labels), default=-1)
        new_labels = [f"Topic{first + i}" for i in range(len(narrower))]
        graph.run("index/remove_topic", name=name)
        graph.run("index/add_topics", topics=[
            {"name": t.name, "description": t.description, "label": lb}
            for t, lb in zip(narrower, new_labels, strict=True)])
        log.info("topic %r held %.0f%% of the entities: split into %s", name,
                 100 * row["share"], ", ".join(t.name for t in narrower))
        await topic_assign.assign_text_units(graph, llm, settings, narrower, progress, failed,
                                             units)
        graph.run("index/label_topic_entities_from_chunks")
        keep = [i for i, t in enumerate(topics) if t.name != name]
        topics = [topics[i] for i in keep] + narrower
        labels = [labels[i] for i in keep] + new_labels
        split.append(name)
    return topics, labels, split, unsplit
