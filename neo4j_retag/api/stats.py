"""What the graph holds, per level and topic, and the LLM spend so far, as one shape (`stats
--json`, ``GET /stats``, MCP's ``stats``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..db import Graph
from ..ops.stats import collect


class Level(BaseModel):
    level: int
    communities: int
    reports: int
    stale: int


class TopicSubgraph(BaseModel):
    name: str
    label: str
    entities: int
    communities: int
    reports: int
    reused: int = 0  # of its reports, those reused from a community with the same members
    levels: list[Level]


class StageUsage(BaseModel):
    """The LLM calls and tokens of one stage, summed over every run so far."""

    stage: str
    calls: int | None = None
    cached: int | None = None
    failed: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class StageEstimate(BaseModel):
    """The last ingest's estimate for one stage beside what it spent (None: not yet)."""

    stage: str
    calls: int | float | None = None
    prompt_tokens: int | float | None = None
    completion_tokens: int | float | None = None
    actual_calls: int | None = None
    actual_prompt_tokens: int | None = None
    actual_completion_tokens: int | None = None


class Stats(BaseModel):
    """Counts of the graph; ``communities`` and ``community_reports`` are the general
    graph's, ``topic_*`` the topic subgraphs'; failed, stale, composed, reused and embedded
    reports count every scope. ``serve``: the question gate of a `serve` process (slots,
    waiting, most at once, answered, refused), None elsewhere."""

    index_method: str | None = None
    documents: int
    text_units: int
    text_units_extracted: int
    text_units_failed: int
    entities: int
    relationships: int
    concepts: int
    co_occurrences: int
    claims: int
    communities: int
    community_reports: int
    topic_communities: int
    topic_reports: int
    failed_reports: int
    stale_reports: int
    composed_reports: int
    # reports composed from their members' evidence sentences (LLM_CLASS=small)
    evidence_reports: int = 0
    sentences: int = 0  # the documents' sentences: the evidence of the graph
    reused_reports: int
    unsupported_findings: int | None = None
    topics: int
    topic_mode: str | None = None  # how the topics were built: communities, assign, reextract
    text_units_embedded: int
    entities_embedded: int
    reports_embedded: int
    embedding_model: str | None = None
    levels: list[Level]
    topic_subgraphs: list[TopicSubgraph]
    llm_usage: list[StageUsage]
    dropped_records: dict[str, int]
    # failed text units and reports the endpoint's content filter blocked, by the category
    # it flagged ("sexual (low)", "jailbreak"; an item flagged for two counts under both)
    content_filter: dict[str, int] = {}
    ingest_estimate: list[StageEstimate]
    serve: dict[str, Any] | None = None


def stats(graph: Graph, _: BaseModel | None = None) -> Stats:
    """The counts (:func:`ops.stats.collect`) as :class:`Stats`."""
    return Stats(**collect(graph))
