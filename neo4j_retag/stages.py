"""The LLM pipeline stages, named once: every chat or embeddings call names one ``Stage``.

A stage's value is the string the rest of the system keys on, so it never changes: the
``X-Retag-Stage`` header of the request (a proxy, a log or the test double tells calls
apart by it), the key of ``Usage.stages`` (``stats``, the graph's ``:LLMUsage`` counters,
a trace's ``llm_stages``, a refusal's step) and the estimate's calibration rows. The
response cache keys never hold it. Each stage also says:

- ``kind``: the side that calls it (``index``, ``query``, ``eval``, ``ops``, ``bench``);
- ``group``: the estimate group an ingest counts it under (``ingest --estimate``, the
  actual figures beside it in ``stats``, the cost benchmarks); None: a stage no ingest
  calls, counted under its own name if it ever is;
- ``budget``: the setting that sizes its prompt, the one to lower when it is over the
  model's window (every answer and reduce step: REDUCE_CONTEXT_TOKENS);
- ``embeddings``: a call of the embeddings endpoint, whose tokens are another model's and
  are priced apart from the chat calls.

A name that is no stage is a programming error: ``stage_of`` raises ValueError (the LLM
client checks every call's stage through it, before anything is sent).
"""

from __future__ import annotations

from enum import StrEnum

_REDUCE = "REDUCE_CONTEXT_TOKENS"


class Stage(StrEnum):
    """One LLM pipeline stage: ``Stage.MAP == "map"``; see the module doc for its fields."""

    kind: str
    group: str | None
    budget: str
    embeddings: bool

    def __new__(cls, value: str, kind: str, group: str | None = None,
                budget: str = _REDUCE, embeddings: bool = False) -> Stage:
        obj = str.__new__(cls, value)
        obj._value_ = value
        obj.kind, obj.group, obj.budget, obj.embeddings = kind, group, budget, embeddings
        return obj

    # the index (index/): extraction, descriptions, reports, ReTAG's topics, vectors
    EXTRACT = "extract", "index", "extract", "CHUNK_SIZE"
    GLEAN = "glean", "index", "glean", "CHUNK_SIZE"  # a gleaning round and its continue question
    CLAIMS = "claims", "index", "claims", "CHUNK_SIZE"  # CLAIMS_CALL=separate
    SUMMARIZE = "summarize", "index", "summarize", "SUMMARY_MAX_TOKENS"
    REPORT = "report", "index", "report", "REPORT_CONTEXT_TOKENS"
    # a report composed from evidence (LLM_CLASS=small): its title only
    REPORT_TITLE = "report_title", "index", "report", "REPORT_MAX_TOKENS"
    TOPICS = "topics", "index", "topics"  # the topic list mined from the global answers
    TOPIC_SUMMARY = "topic_summary", "index", "topics"  # the corpus description
    TOPIC_ASSIGN = "topic_assign", "index", "topics", "CHUNK_SIZE"
    TOPIC_SPLIT = "topic_split", "index", "topics"  # a topic holding most of the graph, split
    # topics from the general graph's communities (TOPIC_MODE=communities): a topic's name over
    # its best evidence sentences (a topic of several communities), and the titles of its
    # subgraph's communities that repeat no general one (a report composed from evidence)
    TOPIC_TITLE = "topic_title", "index", "topics", "REPORT_MAX_TOKENS"
    TOPIC_REPORT_TITLE = "topic_report_title", "index", "topics", "REPORT_MAX_TOKENS"
    EMBED = "embed", "index", "embed", _REDUCE, True  # text units, entities, reports
    # the query methods (query/); map and reduce also mine an ingest's topics
    MAP = "map", "query", "topics", "MAP_CONTEXT_TOKENS"
    REDUCE = "reduce", "query", "topics"
    REDUCE_PARTIAL = "reduce_partial", "query", "topics"  # the hierarchical reduce's steps
    ANSWER = "answer", "query"  # rag, local search, hybrid: one answer over a context
    CLASSIFY = "classify", "query"  # ReTAG's topic of the question
    KEYWORDS = "keywords", "query"
    ROUTE = "route", "query"  # --method auto
    RATE = "rate", "query", None, "MAP_CONTEXT_TOKENS"  # dynamic community selection
    REFINE_CHECK = "refine_check", "query"
    EMBED_QUERY = "embed_query", "query", None, _REDUCE, True  # a question's vector
    LAZY_SUBQUERIES = "lazy_subqueries", "query"
    RELEVANCE = "relevance", "query", None, "CHUNK_SIZE"
    LAZY_CLAIMS = "lazy_claims", "query"
    LAZY_ANSWER = "lazy_answer", "query"
    LAZY_REPORT = "lazy_report", "query", None, "REPORT_CONTEXT_TOKENS"
    DRIFT_HYDE = "drift_hyde", "query"
    DRIFT_PRIMER = "drift_primer", "query"
    DRIFT_LOCAL = "drift_local", "query"
    DRIFT_REDUCE = "drift_reduce", "query"
    # eval (eval/)
    EVAL_QUESTIONS = "eval_questions", "eval"  # personas, tasks and questions
    EVAL_CLAIMS = "eval_claims", "eval"
    EVAL_JUDGE = "eval_judge", "eval"
    NUGGET_EMBED = "nugget_embed", "eval", None, _REDUCE, True
    # doctor's probes (ops/): one chat reply, one embeddings dimension
    DOCTOR = "doctor", "ops"
    # benchmarks/ only: a relevance judge, a one-word probe, an answer-check collector
    JUDGE = "judge", "bench"
    PROBE = "probe", "bench"
    ANSWER_CHECK_COLLECT = "answer_check_collect", "bench"


KINDS = ("index", "query", "eval", "ops", "bench")


def stage_of(name: str) -> Stage:
    """The ``Stage`` named ``name`` (a ``Stage`` is returned as is). Raises ValueError for a
    name that is no stage: a programming error, never a user's."""
    try:
        return Stage(name)
    except ValueError:
        raise ValueError(f"{name!r} is no LLM stage: name it in neo4j_retag/stages.py "
                         "and pass Stage.<NAME>") from None


def group_of(name: str) -> str:
    """The estimate group an ingest counts stage ``name`` under (its own name when the table
    gives none). Raises ValueError for a name that is no stage (``stage_of``)."""
    return stage_of(name).group or name


__all__ = ["KINDS", "Stage", "group_of", "stage_of"]
