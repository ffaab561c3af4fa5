"""Claim-based metrics of answers (Edge et al. 2025, the claim-based evaluation): an LLM
extracts atomic, self-contained factual claims from an answer; **comprehensiveness** is the
number of unique claims and **diversity** the number of clusters of those claims
(agglomerative clustering, complete linkage, distance ``1 - ROUGE-L F1``) at a distance
threshold τ. The metrics need no judge's taste; :func:`agreement` checks how often the LLM
judge's pairwise preference agrees with them.

rouge-score and SciPy are imported lazily: `neo4j-retag --help` must stay fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, field_validator

from ..config import Settings
from ..llm import LLM
from ..model import JSON
from ..prompts import render

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
    """The answer's unique factual claims (``prompts/query/eval_claims.txt``, stage
    ``eval_claims``). Raises LLMError (LLMParseError) when the LLM fails or its output cannot
    be parsed - the caller fails that answer's metrics, not the run."""
    msgs = render("query/eval_claims", question=question, answer=answer)
    result = await llm.structured(msgs, Claims, stage="eval_claims")
    return unique_claims(result.claims)


def _scorer() -> Any:
    from rouge_score import rouge_scorer  # lazy: only `eval` needs it
    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_l(a: str, b: str) -> float:
    """ROUGE-L F1 of two texts (rouge-score's tokenizer: lower-cased alphanumeric tokens)."""
    return float(_scorer().score(a, b)["rougeL"].fmeasure)


def distances(claims: list[str]) -> list[float]:
    """Condensed pairwise distance vector (SciPy's order: (0,1), (0,2) ... (n-2,n-1)) of
    ``1 - ROUGE-L F1``."""
    scorer = _scorer()
    return [1.0 - float(scorer.score(claims[i], claims[j])["rougeL"].fmeasure)
            for i in range(len(claims)) for j in range(i + 1, len(claims))]


def cluster_counts(claims: list[str], taus: Iterable[float] = TAUS) -> dict[str, int]:
    """Number of clusters per threshold τ (keys ``"0.5"`` ...): complete-linkage agglomerative
    clustering cut where the merge distance exceeds τ, so every cluster's claims are pairwise
    within distance τ. 0 claims -> 0 clusters, 1 claim -> 1."""
    taus = list(taus)
    n = len(claims)
    if n < 2:
        return {f"{t:g}": n for t in taus}
    import numpy as np
    from scipy.cluster.hierarchy import fcluster, linkage
    tree = linkage(np.asarray(distances(claims)), method="complete")
    return {f"{t:g}": int(len(set(fcluster(tree, t=t, criterion="distance")))) for t in taus}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def agreement(pairs: list[JSON]) -> JSON:
    """How often the judge's pairwise preference agrees with the claim metrics, on pairs where
    neither is tied (Edge et al. 2025).

    ``pairs``: ``{"criterion", "judge", "a": metrics, "b": metrics}`` where ``judge`` is a's
    score against b (0-1, 0.5 a tie) and metrics are ``{"claims": int, "clusters": {τ: int}}``
    (None when the metrics failed: the pair is skipped). Returns
    ``{"comprehensiveness": {"agree", "pairs", "rate"}, "diversity": {τ: {...}}}``; rate is
    None when no pair counts.
    """
    def tally(rows: list[tuple[float, int]]) -> JSON:
        counted = [(j, d) for j, d in rows if _sign(j - 0.5) and d]
        agree = sum(_sign(j - 0.5) == d for j, d in counted)
        return {"agree": agree, "pairs": len(counted),
                "rate": round(agree / len(counted), 3) if counted else None}

    comp: list[tuple[float, int]] = []
    div: dict[str, list[tuple[float, int]]] = {}
    for p in pairs:
        a, b = p["a"], p["b"]
        if a is None or b is None:
            continue
        if p["criterion"] == "comprehensiveness":
            comp.append((p["judge"], _sign(a["claims"] - b["claims"])))
        elif p["criterion"] == "diversity":
            for tau, n in a["clusters"].items():
                div.setdefault(tau, []).append((p["judge"], _sign(n - b["clusters"][tau])))
    return {"comprehensiveness": tally(comp),
            "diversity": {tau: tally(rows) for tau, rows in div.items()}}


def claim_metrics(claims: list[str]) -> JSON:
    """``{"claims": n unique, "clusters": {τ: count}}`` of one answer's claims."""
    claims = unique_claims(claims)
    return {"claims": len(claims), "clusters": cluster_counts(claims)}

