"""`neo4j-retag stats`: what the graph holds, per level and topic, and the LLM spend so far."""

from __future__ import annotations

from typing import Any

from .communities import GENERAL
from .db import Graph
from .llm import Usage


def record_usage(graph: Graph, usage: Usage) -> None:
    """Add this command's LLM usage to the cumulative counters in the graph."""
    rows = [{"stage": k, **{f: int(v) for f, v in vars(s).items() if f != "seconds"}}
            for k, s in usage.stages.items()]
    if rows:
        graph.run("add_usage", rows=rows)


def collect(graph: Graph) -> dict[str, Any]:
    """Counts as a dict: documents, text_units, entities, relationships, claims, communities,
    community_reports, levels (one entry per level), topics (with their levels), llm_usage."""
    out: dict[str, Any] = graph.run("stats")[0]
    out["levels"] = graph.run("scope_levels", scope=GENERAL)
    topics = graph.run("topic_counts")
    for t in topics:
        t["levels"] = graph.run("scope_levels", scope=t["label"])
    out["topic_subgraphs"] = topics
    out["llm_usage"] = graph.run("usage")
    return out
