"""`neo4j-retag stats`: what the graph holds, per level and topic, and the LLM spend so far."""

from __future__ import annotations

import logging
import uuid
from collections import Counter

from ..db import Graph, Record
from ..llm import Usage
from ..llm.reply import blocked_categories
from ..model import GENERAL

log = logging.getLogger(__name__)


def record_usage(graph: Graph, usage: Usage) -> None:
    """Add this command's LLM usage to the cumulative counters in the graph."""
    rows = [{"stage": k, **s.model_dump(exclude={"seconds"})} for k, s in usage.stages.items()]
    if rows:
        graph.run("ops/add_usage", rows=rows, write=uuid.uuid4().hex)


def record_usage_or_warn(graph: Graph, usage: Usage) -> None:
    """:func:`record_usage`, a failure logged as a warning, never raised: the accounting of
    an answer or a job must never mask how it ended."""
    try:
        record_usage(graph, usage)
    except Exception as err:  # noqa: BLE001
        log.warning("could not record LLM usage in the graph: %s", err)


def content_filtered(graph: Graph) -> dict[str, int]:
    """The failed items (text units, community reports) the endpoint's content filter
    blocked, counted by each category it flagged (``"no category given"`` when it named
    none): the counts alone do not say what to look at."""
    out: Counter[str] = Counter()
    for row in graph.run("ops/content_filtered"):
        names = blocked_categories(row["error"] or "")
        out.update(names or ["no category given"])
    return dict(sorted(out.items()))


def collect(graph: Graph) -> Record:
    """Counts as a dict: documents, text_units, entities, relationships, claims, communities
    and community_reports (the general scope), topic_communities and topic_reports (the topic
    scopes; failed, stale, composed, reused and embedded reports count every scope), levels
    (one entry per level), topics (with their levels), llm_usage,
    dropped_records ({reason: extraction records dropped}), content_filter ({category: failed
    items the content filter blocked}), ingest_estimate (per stage, the last
    ingest's estimate and actual calls / prompt / completion tokens)."""
    out: Record = graph.run("ops/stats")[0]
    out["levels"] = graph.run("query/scope_levels", scope=GENERAL)
    topics = graph.run("index/topic_counts")
    for t in topics:
        t["levels"] = graph.run("query/scope_levels", scope=t["label"])
    out["topic_subgraphs"] = topics
    out["llm_usage"] = graph.run("ops/usage")
    out["dropped_records"] = {r["reason"]: r["records"] for r in graph.run("ops/dropped_records")}
    out["content_filter"] = content_filtered(graph)
    # the last ingest's estimate (ingest --estimate's figures) beside what it spent
    out["ingest_estimate"] = graph.run("ops/estimate")
    return out
