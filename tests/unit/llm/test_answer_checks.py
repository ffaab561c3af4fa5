"""Issue 45: every reply of the labelled set (benchmarks/quality/answer_checks/replies.jsonl,
real Qwen and SmolLM2 replies labelled by hand) is judged as its label says - a good one never
refused, a bad one always - by every check an answer's free text gets."""

import pytest

from benchmarks.quality.answer_checks import labelled
from neo4j_retag.llm import Subject
from neo4j_retag.llm.answer_faults import refusal

ROWS = labelled.rows()


def test_the_set_is_large_enough_and_labelled():
    assert len(ROWS) >= 150 and len({r["id"] for r in ROWS}) == len(ROWS)
    assert all(r["label"] in ("good", "bad") and r["reason"] for r in ROWS)
    assert all(r["rule"] for r in ROWS if r["label"] == "bad")


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_a_labelled_reply_is_judged_as_labelled(row):
    try:
        context = labelled.context(row["context"])
    except FileNotFoundError as err:
        pytest.skip(f"the context is not on this machine: {err}")
    verdict = refusal(row["reply"], labelled.prompt(row["method"], row["kind"]),
                      Subject(row["question"], context))
    if row["label"] == "good":
        assert verdict is None, f"{row['reason']} - refused: {verdict}"
    else:
        assert verdict is not None, f"missed: {row['reason']}"
