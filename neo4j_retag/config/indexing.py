"""The index group of `Settings` (Edge et al. 2024 §3.1, ReTAG's topics): text units,
extraction, summaries, communities and their reports, topics, the estimate."""

from __future__ import annotations

from typing import Literal

from .groups import Group, env


class IndexSettings(Group):
    """Indexing (Edge et al. 2024 §3.1)."""

    method: Literal["auto", "full", "lazy"] = env(
        "INDEX_METHOD", "auto", "`full` (GraphRAG + ReTAG: LLM-extracted entities and reports; "
        "on a lazy graph `ingest --full` turns it into the full index), `lazy` (noun-phrase "
        "concepts and their communities, no LLM call: [lazy index](lazy.md), `ingest --lazy`), "
        "`auto` = what the graph holds (full for a new one)")
    chunk_size: int = env("CHUNK_SIZE", 600, "tokens per text unit", ge=1)
    chunk_overlap: int = env("CHUNK_OVERLAP", 100, "tokens two neighbouring text units share",
                             ge=0)
    entity_types: list[str] = env("ENTITY_TYPES", ["organization", "person", "geo", "event"],
                                  "entity types the extraction asks for (a JSON list)")
    extract_claims: bool = env("EXTRACT_CLAIMS", True, "extract claims (`ingest --no-claims` "
                               "for one run)")
    claims_call: Literal["combined", "separate"] = env(
        "CLAIMS_CALL", "combined", "claims in the graph extraction call (its schema asks for at "
        "least one; claims whose source quote is not in the text are dropped) or `separate`: a "
        "claims call of its own after it (GraphRAG's covariate extraction; one more LLM call per "
        "text unit) for a model that still answers `\"claims\": []`")
    glean: int = env("GLEAN", 0, "extra gleaning rounds per text unit "
                     "([Indexing](indexing.md#what-keeps-the-bill-down))", ge=0)
    summary_max_tokens: int = env("SUMMARY_MAX_TOKENS", 500, "token limit of an element's "
                                  "merged descriptions", ge=1, local=300)
    summary_min_descriptions: int = env(
        "SUMMARY_MIN_DESCRIPTIONS", 8, "an element's descriptions get an LLM summary from this "
        "many on (or when joined they exceed `SUMMARY_MAX_TOKENS`); fewer are joined, no call",
        ge=1)
    max_cluster_size: int = env("MAX_CLUSTER_SIZE", 10, "the largest leaf community Leiden "
                                "leaves unsplit", ge=1)
    leiden_seed: int = env("LEIDEN_SEED", 42, "Leiden's random seed")
    report_context_tokens: int = env("REPORT_CONTEXT_TOKENS", 8000, "a community report's "
                                     "context budget", ge=1, local=3000)
    report_max_tokens: int = env("REPORT_MAX_TOKENS", 1500, "a community report's completion "
                                 "budget", ge=1, local=800)
    report_compose_max_entities: int = env(
        "REPORT_COMPOSE_MAX_ENTITIES", 3, "communities of at most this many entities get a "
        "report composed from their descriptions, no LLM call", ge=0)
    topic_mode: Literal["auto", "communities", "assign", "reextract"] = env(
        "TOPIC_MODE", "auto", "how ReTAG's topics are built: `communities` = groups of the "
        "general graph's largest communities, named and described from their evidence sentences "
        "(no mining, no assignment, no written topic report); `assign` / `reextract` = mined by "
        "global search, their subgraphs by labelling text units or by re-extraction; `auto` = "
        "`communities` for `LLM_CLASS=small`, else `assign` "
        "([Indexing](indexing.md#topics-from-the-communities))")
    topic_min_entities: int = env(
        "TOPIC_MIN_ENTITIES", 4, "`TOPIC_MODE=communities`: a community of fewer entities is no "
        "topic (a question about it matches none, and the general graph answers it)", ge=1)
    topic_split: bool = env(
        "TOPIC_SPLIT", True, "a topic whose subgraph holds more than `RETAG_TOPIC_MAX_SHARE` of "
        "the entities is mined again into 2-4 narrower topics at build time (one `topic_split` "
        "call from the general reports holding most of its entities; its text units assigned "
        "again); a failed split call is a failed item, a reply without two narrower topics "
        "leaves the topic as it is, listed ([Indexing](indexing.md))")
    topic_remine_share: float = env(
        "TOPIC_REMINE_SHARE", 0.1, "an `ingest` mines topics again only when more than this "
        "share of the entities changed; else it keeps them and labels only the new text units "
        "([Indexing](indexing.md#incremental-topics))", ge=0, le=1)
    estimate_profile: Literal["auto", "remote", "local-small", "select"] = env(
        "ESTIMATE_PROFILE", "auto", "the model profile of `ingest --estimate`: `remote`, "
        "`local-small` (the embedded SmolLM2's written extraction) or `select` (a small model's "
        "selecting extraction); `auto` = `select` for `LLM_CLASS=small`, else `remote`")
