"""Evaluation scores and output folder: aggregation by hand, the JSON shapes, and PNG charts
that decode at their fixed sizes."""

import json

import pytest

from neo4j_retag.errors import Failure
from neo4j_retag.eval.charts import SIZES
from neo4j_retag.eval.records import AnswerRecord, Judgement, Metrics, Tally
from neo4j_retag.eval.report import scores, stats, win_rates, write_folder
from neo4j_retag.model import LLMCost

METHODS = ["retag", "global", "rag"]
CRITERIA = ["comprehensiveness", "diversity"]


def answers():
    out = []
    for q, n in (("q1", 0), ("q2", 2)):
        for i, m in enumerate(METHODS):
            out.append(AnswerRecord(
                question=q, method=m, answer=f"{m} answer", seconds=1.0 + i,
                llm=LLMCost(calls=2 + i + n, prompt_tokens=100 * (i + 1)),
                metrics=Metrics(claims=3 - i + n, clusters=dict.fromkeys(
                    ("0.5", "0.6", "0.7", "0.8"), 2 - i % 2))))
    return out


def judgements():
    return [Judgement(question=q, a=a, b=b, criterion=c, score=s)
            for q, s in (("q1", 1.0), ("q2", 0.5))
            for a, b in (("retag", "global"), ("retag", "rag"), ("global", "rag"))
            for c in CRITERIA]


def test_stats_and_win_matrix():
    s = stats([1, 3])
    assert (s.mean, s.std, s.n) == (2, pytest.approx(1.414, abs=1e-3), 2)
    assert stats([]).model_dump() == {"mean": None, "std": None, "n": 0}
    rows, matrix = win_rates(judgements(), METHODS, CRITERIA)
    assert len(rows) == 3 * 2 and all(r.questions == 2 for r in rows)
    assert matrix["diversity"]["retag"]["global"] == 0.75  # mean of 1.0 and 0.5
    assert matrix["diversity"]["global"]["retag"] == 0.25
    assert matrix["diversity"]["rag"]["rag"] is None


def test_scores_shape_and_folder(tmp_path):
    failed = Failure.of("verdict on diversity for 'q3' (counted as a tie)", "no verdict")
    result = scores(METHODS, CRITERIA, 1, ["q1", "q2"], answers(), judgements(), [failed])
    c = result.claims["retag"].claims
    assert (c.mean, c.std, c.n) == (4, pytest.approx(1.414, abs=1e-3), 2)
    assert result.cost["rag"].prompt_tokens.mean == 300
    assert result.cost["global"].llm_calls.mean == 4  # (3 + 5) / 2
    # retag (3/5 claims) beats global (2/4) in q1 by the judge and by the claims: agreement
    assert result.agreement.comprehensiveness == Tally(agree=3, pairs=3, rate=1.0)
    files = write_folder(tmp_path, result, answers(), judgements())
    names = {f.name for f in files}
    assert {"scores.json", "answers.json", "judgements.json", *SIZES} <= names
    data = json.loads((tmp_path / "scores.json").read_text())
    assert set(data) >= {"level", "methods", "criteria", "questions", "taus", "win_rates",
                         "win_matrix", "claims", "agreement", "cost", "failures"}
    assert data["failures"] == [{"item": "verdict on diversity for 'q3' (counted as a tie)",
                                 "reason": "incomplete", "error": "no verdict"}]
    assert data["claims"]["retag"]["clusters"]["0.5"]["n"] == 2
    back = [AnswerRecord.model_validate(a)
            for a in json.loads((tmp_path / "answers.json").read_text())]
    assert back == answers()  # the records round-trip through the folder
    import matplotlib.image as mpimg
    for name, (w, h) in SIZES.items():
        img = mpimg.imread(tmp_path / name)
        assert img.shape[:2] == (h, w), name
        assert img.std() > 0.05  # not a blank canvas
