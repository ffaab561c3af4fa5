"""The scores of an evaluation run, aggregated, and its output folder (plain data, no LLM);
the records are typed in :mod:`.records`."""

from __future__ import annotations

import itertools
import json
import statistics
from pathlib import Path

from pydantic import BaseModel

from ..errors import Failure
from .claims import TAUS, agreement
from .records import (
    Agreement,
    AnswerRecord,
    ClaimStats,
    CostStats,
    Judgement,
    Scores,
    Stats,
    WinRate,
)


def stats(values: list[float]) -> Stats:
    """Mean and sample standard deviation (0 for one value), rounded to 3 places."""
    if not values:
        return Stats()
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return Stats(mean=round(statistics.fmean(values), 3), std=round(std, 3), n=len(values))


def win_rates(judgements: list[Judgement], methods: list[str], criteria: list[str],
              ) -> tuple[list[WinRate], dict[str, dict[str, dict[str, float | None]]]]:
    """Head-to-head win rates: one :class:`WinRate` per pair (a before b in ``methods``) and
    criterion, and the matrix ``{criterion: {row: {column: rate}}}`` (row's win rate against
    column; the diagonal None), as the papers' heat maps."""
    rows = []
    matrix: dict[str, dict[str, dict[str, float | None]]] = {
        c: {m: dict.fromkeys(methods) for m in methods} for c in criteria}
    for a, b in itertools.combinations(methods, 2):
        for c in criteria:
            scores = [j.score for j in judgements if (j.a, j.b, j.criterion) == (a, b, c)]
            rate = round(statistics.fmean(scores), 3) if scores else None
            rows.append(WinRate(a=a, b=b, criterion=c, win_rate=rate, questions=len(scores)))
            matrix[c][a][b] = rate
            matrix[c][b][a] = None if rate is None else round(1 - rate, 3)
    return rows, matrix


def claims_summary(answers: list[AnswerRecord], methods: list[str]) -> dict[str, ClaimStats]:
    """Per method: comprehensiveness (unique claims) and diversity (clusters per τ) as
    :func:`stats` over the answers whose claims were extracted."""
    out = {}
    for m in methods:
        ms = [a.metrics for a in answers if a.method == m and a.metrics is not None]
        out[m] = ClaimStats(claims=stats([x.claims for x in ms]),
                            clusters={f"{t:g}": stats([x.clusters[f"{t:g}"] for x in ms])
                                      for t in TAUS})
    return out


def cost_summary(answers: list[AnswerRecord], methods: list[str]) -> dict[str, CostStats]:
    """Per method: prompt tokens, LLM calls (cached ones included) and seconds per answer."""
    out = {}
    for m in methods:
        rs = [a for a in answers if a.method == m and a.error is None]
        out[m] = CostStats(prompt_tokens=stats([r.llm.prompt_tokens for r in rs]),
                           llm_calls=stats([r.llm.calls + r.llm.cached for r in rs]),
                           seconds=stats([r.seconds for r in rs]))
    return out


def judge_agreement(answers: list[AnswerRecord], judgements: list[Judgement]) -> Agreement:
    """:func:`.claims.agreement` over every judgement on comprehensiveness and diversity."""
    metrics = {(a.question, a.method): a.metrics for a in answers}
    return agreement((j.criterion, j.score, metrics.get((j.question, j.a)),
                      metrics.get((j.question, j.b))) for j in judgements)


def scores(methods: list[str], criteria: list[str], level: int, questions: list[str],
           answers: list[AnswerRecord], judgements: list[Judgement],
           failures: list[Failure]) -> Scores:
    """Everything measured: win rates and matrix, claim metrics, judge agreement, cost."""
    rows, matrix = win_rates(judgements, methods, criteria)
    return Scores(level=level, methods=methods, criteria=criteria, questions=questions,
                  taus=[f"{t:g}" for t in TAUS], win_rates=rows, win_matrix=matrix,
                  claims=claims_summary(answers, methods),
                  agreement=judge_agreement(answers, judgements),
                  cost=cost_summary(answers, methods), failures=failures)


def _dump(data: BaseModel | list[AnswerRecord] | list[Judgement]) -> str:
    plain = ([x.model_dump(mode="json") for x in data] if isinstance(data, list)
             else data.model_dump(mode="json"))
    return json.dumps(plain, indent=2, ensure_ascii=False) + "\n"


def write_folder(folder: Path, result: Scores, answers: list[AnswerRecord],
                 judgements: list[Judgement]) -> list[Path]:
    """``scores.json``, ``answers.json`` (every answer with its trace, claims and nugget
    hits), ``judgements.json`` and the PNG charts in ``folder``; returns the files
    written."""
    from .charts import write_charts  # lazy: matplotlib
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for name, data in (("scores.json", result), ("answers.json", answers),
                       ("judgements.json", judgements)):
        path = folder / name
        path.write_text(_dump(data))
        files.append(path)
    return files + write_charts(folder, result)
