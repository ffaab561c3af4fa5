"""Benchmark (not a test): the answer checks on the labelled set of real replies
(replies.jsonl, see labelled.py): every check a free-text answer gets
(``llm.answer_faults.refusal``: JSON or the prompt echoed, then ``checks.degenerate``)
against the label read by hand. Prints the confusion table, false refusals and misses per
rule, and writes
bench-results/answer-checks.json. No LLM, no Neo4j; a second or two.

    .venv/bin/python -m benchmarks.quality.answer_checks.bench

Exits 1 when a good reply is refused or under 95 % of the bad ones are caught (the
issue's bar).
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from benchmarks.quality.answer_checks import labelled
from neo4j_retag.llm import Subject
from neo4j_retag.llm.answer_faults import refusal

OUT = labelled.ROOT / "bench-results" / "answer-checks.json"


def judge(row: dict) -> dict:
    """``row`` checked: its id, label, the rule that refused it (None: passed) and why."""
    v = refusal(row["reply"], labelled.prompt(row["method"], row["kind"]),
                Subject(row["question"], labelled.context(row["context"])))
    return {"id": row["id"], "label": row["label"], "expected": row["rule"],
            "refused_by": v.rule if v else None, "why": v.why if v else None,
            "numbers": v.numbers if v else None}


def main() -> int:
    results = [judge(r) for r in labelled.rows()]
    good = [r for r in results if r["label"] == "good"]
    bad = [r for r in results if r["label"] == "bad"]
    false_refusals = [r for r in good if r["refused_by"]]
    misses = [r for r in bad if not r["refused_by"]]
    caught = len(bad) - len(misses)
    print(f"{len(results)} labelled replies: {len(good)} good, {len(bad)} bad\n")
    print("|        | refused | passed |\n|---|---|---|")
    print(f"| good   | {len(false_refusals):7} | {len(good) - len(false_refusals):6} |")
    print(f"| bad    | {caught:7} | {len(misses):6} |\n")
    by_rule = Counter(r["refused_by"] for r in bad if r["refused_by"])
    kinds = Counter(r["expected"] for r in bad)
    missed = Counter(r["expected"] for r in misses)
    print("bad replies by kind (caught/total):",
          ", ".join(f"{k} {kinds[k] - missed[k]}/{kinds[k]}" for k in sorted(kinds)))
    print("refusals by rule:", ", ".join(f"{k} {v}" for k, v in sorted(by_rule.items())))
    for r in false_refusals:
        print(f"FALSE REFUSAL {r['id']}: {r['refused_by']}: {r['why']}")
    for r in misses:
        print(f"MISSED {r['id']} ({r['expected']})")
    share = caught / len(bad) if bad else 1.0
    print(f"\nfalse refusals {len(false_refusals)}, caught {caught}/{len(bad)} ({share:.0%})")
    OUT.write_text(json.dumps({
        "what": "the answer checks on benchmarks/quality/answer_checks/replies.jsonl",
        "command": "python -m benchmarks.quality.answer_checks.bench",
        "replies": len(results), "good": len(good), "bad": len(bad),
        "false_refusals": len(false_refusals), "caught": caught, "missed": len(misses),
        "caught_share": round(share, 3), "refusals_by_rule": dict(by_rule),
        "results": results}, indent=1) + "\n", encoding="utf-8")
    print(f"written to {OUT.relative_to(labelled.ROOT)}")
    return 0 if not false_refusals and share >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
