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
    level: int = env("QUERY_LEVEL", 1, ge=0)
    shuffle_seed: int = env("SHUFFLE_SEED", 7)
