"""The query group of `Settings`: what the query methods share (Edge et al. §3.1.6, ReTAG
§3.2-3.4) - the level, the answerer, map-reduce's budgets, ReTAG's topics (which the index reads
too). A setting only one method reads is declared beside it, in its group
(``query/lazy.py``'s ``LazySettings``: ``settings.method(LazySettings)``)."""

from __future__ import annotations

from typing import Literal

from .groups import Group, env


class QuerySettings(Group):
    """Querying: what the methods share."""

    ask_method: str | None = env(
        "ASK_METHOD", None, "the method of `ask`, `serve` and MCP without `--method`; unset = the "
        "default of the model's class (`LLM_CLASS`): `auto` for a small model (a question about "
        "the whole corpus to `retag-quoted`, a specific one to `local-quoted`), `retag` for a "
        "capable one; `neo4j-retag config` shows it as `default_method (effective)` "
        "([Query methods](methods.md))")
    answer: Literal["auto", "quote", "one-call", "map-reduce"] = env(
        "ANSWER", "auto", "how a method's retrieved context becomes the answer (`--answer`): "
        "`quote` (the sources' sentences, cited by their text units and pages; no answer call), "
        "`one-call` (one answer call over the context), `map-reduce` (GraphRAG's); `auto` = the "
        "method's own; a method that cannot answer so says it in the trace "
        "([Query methods](methods.md#one-seam-from-context-to-answer))")
    quote_words: int = env(
        "QUOTE_WORDS", 200, "a quoted answer's length in words at most, its headings counted",
        ge=1)
    one_call_tokens: int = env(
        "ONE_CALL_TOKENS", 6000, "the one-call answer reads the retrieved reports, best-ranked "
        "first, up to this many tokens (and the endpoint's window); the reports left out are a "
        "trace note", ge=1)
    level: int = env("QUERY_LEVEL", 1, "community level of `global`, `retag` and the others "
                     "(`--level`; the deepest there is when the graph has fewer)", ge=0)
    map_context_tokens: int = env("MAP_CONTEXT_TOKENS", 8000, "map-reduce: the map step's "
                                  "batch of reports", ge=1, local=3000)
    reduce_context_tokens: int = env("REDUCE_CONTEXT_TOKENS", 8000, "map-reduce: the reduce "
                                     "step's context (local search's and rag's too)", ge=1,
                                     local=3000)
    shuffle_seed: int = env("SHUFFLE_SEED", 7, "the seed that shuffles reports into map "
                            "batches")
    sentence_check: bool = env(
        "ANSWER_SENTENCE_CHECK", True, "answers written over community reports (global search, "
        "ReTAG's map-reduce and one-call answer): a sentence that copies a report sentence about "
        "another subject (another name in its place, a relative's description given to the "
        "relative's possessor, her for his) or quotes three or more words no report read holds "
        "is dropped before citing, each in the trace's `sentences_dropped` with why; an answer "
        "made only of such sentences is the no-answer "
        "([measured](evaluation/history.md#answer-sentences-held-to-the-reports-they-copy))")
    top_p: int = env("TOP_P", 200, "community reports ReTAG retrieves (`--top-p`), and "
                     "refinement's per round", ge=1)
    retag_topics: bool = env(
        "RETAG_TOPICS", True, "ReTAG classifies the question into a topic and reads that topic's "
        "reports; false = the general graph's reports, no classification call (the paper's "
        "retrieval-only arm: `retag-general`), and `ingest` builds no topics (`topics build` "
        "still does); `retag-quoted` sets false")
    retag_topic_max_share: float = env(
        "RETAG_TOPIC_MAX_SHARE", 0.5, "a topic whose subgraph holds more than this share of all "
        "entities narrows nothing: it is not offered to ReTAG's classifier (trace note), and "
        "topics are split at build time (`TOPIC_SPLIT`)", gt=0, le=1)
