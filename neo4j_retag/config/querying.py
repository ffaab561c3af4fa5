"""The query group of `Settings` (Edge et al. §3.1.6, ReTAG §3.2-3.4): map-reduce budgets,
ReTAG's retrieval, and the settings of the other query methods."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .groups import Group, env


class QuerySettings(Group):
    """Querying (Edge et al. §3.1.6, ReTAG §3.2-3.4)."""

    ask_method: str | None = env(
        "ASK_METHOD", None, "the method of `ask`, `serve` and MCP when none is given; unset = "
        "the default of the model's class (LLM_CLASS): small -> auto (a question about the whole "
        "corpus to retag-quoted, a specific one to local-quoted), capable -> retag")
    answer: Literal["auto", "quote", "one-call", "map-reduce"] = env(
        "ANSWER", "auto", "how a method's retrieved context becomes the answer: quote = the "
        "sources' sentences, no answer call; one-call = one answer call over the context; "
        "map-reduce = GraphRAG's map-reduce; auto = the method's own (the paper's); a method "
        "that cannot answer so says it in the trace and answers its own way")
    quote_words: int = env(
        "QUOTE_WORDS", 200, "a quoted answer's length in words at most (its headings counted)",
        ge=1)
    one_call_tokens: int = env(
        "ONE_CALL_TOKENS", 6000, "the one answer call reads the retrieved reports, best-ranked "
        "first, up to this many tokens (and the endpoint's window)", ge=1)
    map_context_tokens: int = env("MAP_CONTEXT_TOKENS", 8000, ge=1)
    reduce_context_tokens: int = env("REDUCE_CONTEXT_TOKENS", 8000, ge=1)
    top_p: int = env("TOP_P", 200, "community reports retrieved by BM25 (ReTAG)", ge=1)
    top_p_share: float = env(
        "TOP_P_SHARE", 1.0, "ReTAG: at most this share of the level's community reports is "
        "retrieved (p = min(TOP_P, ceil(share x reports)); 1 = the paper's fixed p)", gt=0, le=1)
    retag_report_tokens: int = env(
        "RETAG_REPORT_TOKENS", 0, "ReTAG: each retrieved report is read up to this many tokens "
        "(its title, summary and first findings: GraphRAG orders findings by importance); "
        "0 = whole reports", ge=0)
    sentence_check: bool = env(
        "ANSWER_SENTENCE_CHECK", True, "answers over community reports (global, ReTAG): a "
        "sentence that copies a report's sentence about another subject (another name, her for "
        "his), or quotes words no report read holds, is dropped, with a trace note")
    retag_topics: bool = env(
        "RETAG_TOPICS", True, "ReTAG: classify the question into a topic and read its subgraph's "
        "reports; false = the general graph's reports (the paper's retrieval-only arm)")
    retag_topic_max_share: float = env(
        "RETAG_TOPIC_MAX_SHARE", 0.5, "ReTAG: a topic whose subgraph holds more than this share "
        "of the entities narrows nothing: it is not offered to the classifier", gt=0, le=1)
    retag_max_topics: int = env(
        "RETAG_MAX_TOPICS", 2, "ReTAG: a question that spans topics is classified into up to "
        "this many; each topic's subgraph gives its share of the p reports", ge=1)
    level: int = env("QUERY_LEVEL", 1, ge=0)
    shuffle_seed: int = env("SHUFFLE_SEED", 7)
    dynamic_threshold: float = env(
        "DYNAMIC_THRESHOLD", 1, "dynamic community selection: a report rated at least this "
        "(0-5) is relevant and its sub-communities are rated next (GraphRAG's default 1)")
    lazy_budget: int = env(
        "LAZY_BUDGET", 100, "ask --method lazy: relevance tests per question (`--budget`)", ge=1)
    lazy_seconds: float = env(
        "LAZY_SECONDS", 0.0, "ask --method lazy: no new relevance test after this many seconds "
        "of testing, so the tests follow the model's speed (0 = no limit; local: 90)", ge=0)
    lazy_enough: int = env(
        "LAZY_ENOUGH", 0, "ask --method lazy: the tests stop once this many text units are "
        "relevant, and the claims of the best-ranked this many are read (0 = no early stop; "
        "local: 6)", ge=0)
    lazy_test_tokens: int = env(
        "LAZY_TEST_TOKENS", 0, "ask --method lazy: a relevance test reads the text unit's "
        "sentences that best match the question, up to this many tokens (0 = the whole text "
        "unit, up to MAP_CONTEXT_TOKENS; local: 300 x LLM_CTX/8192)", ge=0)
    retrieval: Literal["auto", "bm25", "vector", "hybrid"] = env(
        "RETRIEVAL", "auto", "ReTAG's top-p report retrieval: BM25 (full-text), vector "
        "(embeddings), or both fused by reciprocal rank; auto = hybrid with embeddings, else bm25")
    dynamic_use_summary: bool = env("DYNAMIC_USE_SUMMARY", False, "dynamic community selection: "
                                    "rate reports by their summaries (GraphRAG's use_summary)")
    dynamic_max_level: int = env(
        "DYNAMIC_MAX_LEVEL", 2, "dynamic community selection: when nothing is relevant, rate "
        "every report of the next level, down to this level (GraphRAG's max_level)")
    local_top_k_entities: int = env("LOCAL_TOP_K_ENTITIES", 10, "local search: entities "
                                    "seeded (by embedding; string match without)", ge=1)
    local_top_k_relationships: int = env("LOCAL_TOP_K_RELATIONSHIPS", 10,
                                         "local search: relationships per seeded entity", ge=1)
    local_text_unit_prop: float = env("LOCAL_TEXT_UNIT_PROP", 0.5, "local search: share of "
                                      "the context for text units")
    local_community_prop: float = env("LOCAL_COMMUNITY_PROP", 0.15, "local search: share of "
                                      "the context for reports (the rest: entities)")
    drift_n_depth: int = env("DRIFT_N_DEPTH", 3, "DRIFT: rounds of follow-ups", ge=1)
    drift_k_followups: int = Field(20, ge=1, validation_alias="DRIFT_K_FOLLOWUPS",
                                   description="DRIFT: primer reports; follow-ups per round")
    drift_primer_folds: int = Field(5, ge=1, validation_alias="DRIFT_PRIMER_FOLDS",
                                    description="DRIFT: primer calls")
