"""Claim-based metrics of answers (Edge et al. 2025, the claim-based evaluation): an LLM
extracts atomic, self-contained factual claims from an answer; **comprehensiveness** is the
number of unique claims and **diversity** the number of clusters of those claims
(agglomerative clustering, complete linkage, distance ``1 - ROUGE-L F1``) at a distance
threshold τ. The metrics need no judge's taste; :func:`agreement` checks how often the LLM
judge's pairwise preference agrees with them.

rouge-score and SciPy (the ``[eval]`` extra) are imported lazily: `neo4j-retag --help` must
stay fast.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, field_validator

from ..config import Settings
from ..llm import LLM
from ..prompts import render
from ..stages import Stage
from . import require
from .records import Agreement, Metrics, Tally

TAUS = (0.5, 0.6, 0.7, 0.8)  # the paper's distance thresholds


class Claims(BaseModel):
    claims: list[str] = []

    @field_validator("claims", mode="before")
    @classmethod
    def _strings(cls, v: Any) -> list[str]:
        items = v if isinstance(v, list) else [v] if v else []
        return [str(c.get("claim", c) if isinstance(c, dict) else c) for c in items]


def unique_claims(claims: Iterable[str]) -> list[str]:
    """Claims in first-seen order, duplicates removed (case and whitespace ignored, a trailing
    full stop ignored); empty strings dropped."""
    seen: dict[str, str] = {}
    for c in claims:
        text = " ".join(str(c).split())
        key = text.casefold().rstrip(". ")
        if key and key not in seen:
            seen[key] = text
    return list(seen.values())


async def extract_claims(llm: LLM, settings: Settings, question: str, answer: str) -> list[str]:
    """The answer's unique factual claims (``prompts/eval/claims.txt``, stage
    ``eval_claims``). Raises LLMError (LLMParseError) when the LLM fails or its output cannot
    be parsed - the caller fails that answer's metrics, not the run."""
    msgs = render("eval/claims", question=question, answer=answer)
    result = await llm.structured(msgs, Claims, stage=Stage.EVAL_CLAIMS)
    return unique_claims(result.claims)


@functools.cache
def _scorer() -> Any:
    rouge_scorer = require("rouge_score.rouge_scorer")  # lazy: only `eval` needs it
    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_l(a: str, b: str) -> float:
    """ROUGE-L F1 of two texts (rouge-score's tokenizer: lower-cased alphanumeric tokens)."""
    return float(_scorer().score(a, b)["rougeL"].fmeasure)


def distances(claims: list[str]) -> list[float]:
    """Condensed pairwise distance vector (SciPy's order: (0,1), (0,2) ... (n-2,n-1)) of
    ``1 - ROUGE-L F1``."""
    return [1.0 - rouge_l(claims[i], claims[j])
            for i in range(len(claims)) for j in range(i + 1, len(claims))]


def cluster_counts(claims: list[str], taus: Iterable[float] = TAUS) -> dict[str, int]:
    """Number of clusters per threshold τ (keys ``"0.5"`` ...): complete-linkage agglomerative
    clustering cut where the merge distance exceeds τ, so every cluster's claims are pairwise
    within distance τ. 0 claims -> 0 clusters, 1 claim -> 1."""
    taus = list(taus)
    n = len(claims)
    if n < 2:
        return {f"{t:g}": n for t in taus}
    np, hierarchy = require("numpy"), require("scipy.cluster.hierarchy")
    tree = hierarchy.linkage(np.asarray(distances(claims)), method="complete")
    return {f"{t:g}": int(len(set(hierarchy.fcluster(tree, t=t, criterion="distance"))))
            for t in taus}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def agreement(pairs: Iterable[tuple[str, float, Metrics | None, Metrics | None]]) -> Agreement:
    """How often the judge's pairwise preference agrees with the claim metrics, on pairs where
    neither is tied (Edge et al. 2025).

    ``pairs``: ``(criterion, judge, a, b)`` where ``judge`` is a's score against b (0-1, 0.5 a
    tie) and ``a``, ``b`` the two answers' metrics (None when they failed: the pair is
    skipped). Comprehensiveness is compared with claim counts, diversity with cluster counts
    per τ; a tally's rate is None when no pair counts.
    """
    def tally(rows: list[tuple[float, int]]) -> Tally:
        counted = [(j, d) for j, d in rows if _sign(j - 0.5) and d]
        agree = sum(_sign(j - 0.5) == d for j, d in counted)
        return Tally(agree=agree, pairs=len(counted),
                     rate=round(agree / len(counted), 3) if counted else None)

    comp: list[tuple[float, int]] = []
    div: dict[str, list[tuple[float, int]]] = {}
    for criterion, judge, a, b in pairs:
        if a is None or b is None:
            continue
        if criterion == "comprehensiveness":
            comp.append((judge, _sign(a.claims - b.claims)))
        elif criterion == "diversity":
            for tau, n in a.clusters.items():
                div.setdefault(tau, []).append((judge, _sign(n - b.clusters[tau])))
    return Agreement(comprehensiveness=tally(comp),
                     diversity={tau: tally(rows) for tau, rows in div.items()})


def claim_metrics(claims: list[str]) -> Metrics:
    """The number of unique claims of one answer and their cluster counts per τ."""
    claims = unique_claims(claims)
    return Metrics(claims=len(claims), clusters=cluster_counts(claims))
