"""The scores of an evaluation run, aggregated, and its output folder (plain data, no LLM).

Shapes (all JSON-ready): an *answer record* is ``{"question", "method", "answer", "error",
"seconds", "llm": {"calls", "prompt_tokens", "completion_tokens", "stages"}, "citations",
"trace", "claims", "metrics": {"claims", "clusters": {τ: n}}, "claims_error"}``; a
*judgement* is ``{"question", "a", "b", "criterion", "score"}`` (a's score against b, 0-1).
"""

from __future__ import annotations

import itertools
import json
import statistics
from pathlib import Path

from ..model import JSON
from .eval_claims import TAUS, agreement


def stats(values: list[float]) -> JSON:
    """``{"mean", "std", "n"}``: sample standard deviation (0 for one value); mean and std
    None when there is no value."""
    if not values:
        return {"mean": None, "std": None, "n": 0}
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"mean": round(statistics.fmean(values), 3), "std": round(std, 3), "n": len(values)}


def win_rates(judgements: list[JSON], methods: list[str],
              criteria: list[str]) -> tuple[list[JSON], JSON]:
    """Head-to-head win rates: a list ``{"a", "b", "criterion", "win_rate", "questions"}`` per
    pair (a before b in ``methods``) and the matrix ``{criterion: {row: {column: rate}}}``
    (row's win rate against column; the diagonal None), as the papers' heat maps."""
    rows = []
    matrix: JSON = {c: {m: dict.fromkeys(methods) for m in methods} for c in criteria}
    for a, b in itertools.combinations(methods, 2):
        for c in criteria:
            scores = [j["score"] for j in judgements
                      if j["a"] == a and j["b"] == b and j["criterion"] == c]
            rate = round(statistics.fmean(scores), 3) if scores else None
            rows.append({"a": a, "b": b, "criterion": c, "win_rate": rate,
                         "questions": len(scores)})
            matrix[c][a][b] = rate
            matrix[c][b][a] = None if rate is None else round(1 - rate, 3)
    return rows, matrix


def claims_summary(answers: list[JSON], methods: list[str]) -> JSON:
    """Per method: comprehensiveness (unique claims) and diversity (clusters per τ) as
    :func:`stats` over the answers whose claims were extracted."""
    out = {}
    for m in methods:
        ms = [a["metrics"] for a in answers if a["method"] == m and a.get("metrics")]
        out[m] = {"claims": stats([x["claims"] for x in ms]),
                  "clusters": {f"{t:g}": stats([x["clusters"][f"{t:g}"] for x in ms])
                               for t in TAUS}}
    return out


def cost_summary(answers: list[JSON], methods: list[str]) -> JSON:
    """Per method: prompt tokens, LLM calls (cached ones included) and seconds per answer."""
    out = {}
    for m in methods:
        rs = [a for a in answers if a["method"] == m and a.get("error") is None]
        out[m] = {"prompt_tokens": stats([r["llm"].get("prompt_tokens", 0) for r in rs]),
                  "llm_calls": stats([r["llm"].get("calls", 0) + r["llm"].get("cached", 0)
                                      for r in rs]),
                  "seconds": stats([r["seconds"] for r in rs])}
    return out


def judge_agreement(answers: list[JSON],
                    judgements: list[JSON]) -> JSON:
    """:func:`eval_claims.agreement` over every judgement on comprehensiveness and diversity."""
    metrics = {(a["question"], a["method"]): a.get("metrics") for a in answers}
    return agreement([{"criterion": j["criterion"], "judge": j["score"],
                       "a": metrics.get((j["question"], j["a"])),
                       "b": metrics.get((j["question"], j["b"]))} for j in judgements])


def scores(methods: list[str], criteria: list[str], level: int, questions: list[str],
           answers: list[JSON], judgements: list[JSON],
           failures: list[str]) -> JSON:
    """Everything measured, in one JSON-ready dict: ``level``, ``methods``, ``criteria``,
    ``questions``, ``win_rates``, ``win_matrix``, ``claims``, ``agreement``, ``cost``,
    ``failures``."""
    rows, matrix = win_rates(judgements, methods, criteria)
    return {"level": level, "methods": methods, "criteria": criteria, "questions": questions,
            "taus": [f"{t:g}" for t in TAUS], "win_rates": rows, "win_matrix": matrix,
            "claims": claims_summary(answers, methods),
            "agreement": judge_agreement(answers, judgements),
            "cost": cost_summary(answers, methods), "failures": failures}


def write_folder(folder: Path, result: JSON, answers: list[JSON],
                 judgements: list[JSON]) -> list[Path]:
    """``scores.json``, ``answers.json`` (every answer with its trace and claims),
    ``judgements.json`` and the PNG charts in ``folder``; returns the files written."""
    from .eval_charts import write_charts  # lazy: matplotlib
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for name, data in (("scores.json", result), ("answers.json", answers),
                       ("judgements.json", judgements)):
        path = folder / name
        path.write_text(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")
        files.append(path)
    return files + write_charts(folder, result)
