"""The trace parts of single methods (dynamic selection, lazy search, auto's routing, local
search's seeding, DRIFT): each filled by its method, declared in its method's contract
(``query.contract.Method.trace_part``) and printed by its ``render``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .base import Citation, LLMCost


class Selection(BaseModel):
    """Dynamic community selection's outcome: the threshold, reports rated (``reused``: without
    a call, repeating one rated), relevant ones, ratings that failed (``failure``: the first
    one's error, e.g. the endpoint's status), the rating calls' cost."""

    threshold: float
    rated: int = 0
    relevant: int = 0
    failures: int = 0
    failure: str | None = None
    reused: int = 0
    cost: LLMCost = Field(default_factory=LLMCost)


class LazySearch(BaseModel):
    """The lazy method's budgeted search (query/lazy.py): relevance tests spent of the budget
    (a failed test spends one too), text units found relevant, BM25 matches and those found by
    the question's vector, communities tested and pruned, levels reached, why the tests ended
    before the budget (``stopped``: "seconds" after LAZY_SECONDS, "enough" at LAZY_ENOUGH
    relevant text units; "" otherwise) with those limits and the tokens a test read at most
    (LAZY_TEST_TOKENS; 0 = the whole text unit); then the claim calls over the relevant text
    units."""

    budget: int
    tests: int = 0
    relevant: int = 0
    failed_tests: int = 0
    bm25_matches: int = 0
    vector_matches: int = 0
    communities_tested: int = 0
    communities_pruned: int = 0
    levels_reached: int = 0
    stopped: Literal["", "seconds", "enough"] = ""
    seconds: float = 0
    enough: int = 0
    test_tokens: int = 0
    claim_calls: int = 0
    claim_failures: int = 0


class Routing(BaseModel):
    """``--method auto``'s decision: the kind of question, the method that answered it, the
    classification's one-line reason and the number of topics it read."""

    kind: Literal["global", "specific"]
    method: str
    reason: str = ""
    topics: int = 0


class Seeding(BaseModel):
    """How local search found its entities: ``embedding`` (nearest entity descriptions to the
    question's embedding, GraphRAG's way) or ``full_text`` (string match, the fallback
    without embeddings); the entities seeded, best first, with their scores."""

    by: Literal["embedding", "full_text"]
    entities: list[str] = Field(default_factory=list)
    scores: list[float] = Field(default_factory=list)


class DriftStep(BaseModel):
    """One DRIFT action (query/drift.py): a primer fold (depth 0) or a follow-up question
    answered by local search (depth: the round it was answered in, 1 to DRIFT_N_DEPTH); its
    intermediate ``answer`` and what that ``cited``, the 0-100 ``score`` the model gave it,
    ``parent`` the index of the step whose answer asked it, the ``follow_ups`` its answer
    asked. A follow-up waiting for its round has neither answer nor score."""

    query: str
    depth: int = 0
    parent: int | None = None
    answer: str = ""
    cited: list[Citation] = Field(default_factory=list)
    score: float | None = None
    follow_ups: list[str] = Field(default_factory=list)
    failed: bool = False
    seeded_by: Literal["embedding", "full_text"] | None = None  # follow-ups: Seeding.by
    in_reduce: bool = False


class DriftSearch(BaseModel):
    """``--method drift``'s search (query/drift.py): its limits, how the primer's reports were
    found (``hyde``: the embedding of a hypothetical answer; ``question``: the question's own
    embedding when the hypothetical answer failed; ``bm25``: no embeddings), the steps taken,
    the follow-ups left unanswered at the depth limit, and the LLM cost of each phase
    (``primer``, ``local``, ``reduce``)."""

    n_depth: int
    k_followups: int
    primer_folds: int
    primer_by: Literal["hyde", "question", "bm25"] = "hyde"
    primer_reports: int = 0
    steps: list[DriftStep] = Field(default_factory=list)
    followups_left: int = 0
    phases: dict[str, LLMCost] = Field(default_factory=dict)
