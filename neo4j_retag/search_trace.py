"""The trace parts of local search's seeding and of DRIFT search (re-exported by `model`,
where every other typed result lives; kept here to keep that module short). Plain data: no
imports from the rest of the package."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Seeding(BaseModel):
    """How local search found its entities: ``embedding`` (nearest entity descriptions to the
    question's embedding, GraphRAG's way) or ``full_text`` (string match, the fallback
    without embeddings); the entities seeded, best first, with their scores."""

    by: Literal["embedding", "full_text"]
    entities: list[str] = Field(default_factory=list)
    scores: list[float] = Field(default_factory=list)


class PhaseCost(BaseModel):
    """LLM calls and tokens of one phase of a search (cached calls counted as calls)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class DriftStep(BaseModel):
    """One DRIFT action: a primer fold (depth 0) or a follow-up question answered by local
    search (depth: the round it was answered in, 1 to DRIFT_N_DEPTH); ``score`` is the 0-100
    score the model gave its answer, ``parent`` the index of the step whose answer asked it,
    ``follow_ups`` how many questions the answer asked."""

    query: str
    depth: int = 0
    parent: int | None = None
    score: float | None = None
    follow_ups: int = 0
    failed: bool = False
    seeded_by: str | None = None  # local search's Seeding.by (follow-ups)
    in_reduce: bool = False


class DriftSearch(BaseModel):
    """``--method drift``'s search (query/drift.py): its limits, how the primer's reports were
    found (``hyde``: the embedding of a hypothetical answer; ``question``: the question's own
    embedding when the hypothetical answer failed; ``bm25``: no embeddings), the steps taken,
    the follow-ups left unanswered at the depth limit, and calls and tokens per phase
    (``primer``, ``local``, ``reduce``)."""

    n_depth: int
    k_followups: int
    primer_folds: int
    primer_by: Literal["hyde", "question", "bm25"] = "hyde"
    primer_reports: int = 0
    steps: list[DriftStep] = Field(default_factory=list)
    followups_left: int = 0
    phases: dict[str, PhaseCost] = Field(default_factory=dict)
