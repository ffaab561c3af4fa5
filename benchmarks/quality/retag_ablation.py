"""Benchmark (not a test): ReTAG measured arm by arm against global search, judge-free, on one
index - nugget recall, supported-claims share, prompt tokens, LLM calls and seconds per answer
(Kim et al. 2025 §4.3 ablations; issue 44).

Each arm is a query method with settings overrides, answered by `nugget_compare.py` in its own
process (the settings are read from the environment), so every arm resumes where it stopped:

    # the embedded Qwen on the imported Christmas Carol index (level 0), every arm:
    .venv/bin/python -m benchmarks.quality.retag_ablation benchmarks/nuggets/christmas-carol.json \\
        --name carol-qwen --level 0
    # some arms, the first 5 questions, finished answers kept:
    .venv/bin/python -m benchmarks.quality.retag_ablation benchmarks/nuggets/sample.json \\
        --name sample --arms global,retag-general,retag-general-p25 --questions 5 --resume
    # only the table, from the arms' saved results:
    .venv/bin/python -m benchmarks.quality.retag_ablation benchmarks/nuggets/christmas-carol.json \\
        --name carol-qwen --table

Writes bench-results/retag-ablation-NAME.json and .md (one row per arm); each arm's answers are
in bench-results/nuggets-NAME-ARM.json (nugget_compare's files). Exits 3 when an arm failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, ROOT
from benchmarks.runner import read_results
from neo4j_retag.citations import without_references

# arm -> (method, settings overrides). "as it was" = the settings before issue 44.
AS_IT_WAS = {"RETAG_TOPICS": "true", "RETAG_TOPIC_MAX_SHARE": "1",
             "KEYWORDS_CORPUS_DESCRIPTION": "true", "TOP_P_SHARE": "1"}
ARMS: dict[str, tuple[str, dict[str, str]]] = {
    "global": ("global", {}),
    "retag-as-it-was": ("retag", AS_IT_WAS),
    # topic classification only when a topic is a real part of the graph (size-aware top-1)
    "retag-size-aware": ("retag", {**AS_IT_WAS, "RETAG_TOPIC_MAX_SHARE": "0.5"}),
    # the paper's retrieval-only arm: the general graph's reports, no topic layer
    "retag-general": ("retag", {"RETAG_TOPICS": "false"}),
    "retag-general-desc": ("retag", {"RETAG_TOPICS": "false",
                                     "KEYWORDS_CORPUS_DESCRIPTION": "true"}),
    "retag-general-p50": ("retag", {"RETAG_TOPICS": "false", "TOP_P_SHARE": "0.5"}),
    "retag-general-p25": ("retag", {"RETAG_TOPICS": "false", "TOP_P_SHARE": "0.25"}),
    "retag-general-p12": ("retag", {"RETAG_TOPICS": "false", "TOP_P": "12"}),
    "retag-general-p25-cut600": ("retag", {"RETAG_TOPICS": "false", "TOP_P_SHARE": "0.25",
                                           "RETAG_REPORT_TOKENS": "600"}),
    "retag-general-p50-cut400": ("retag", {"RETAG_TOPICS": "false", "TOP_P_SHARE": "0.5",
                                           "RETAG_REPORT_TOKENS": "400"}),
    # more, smaller map batches: each batch gives its own points (ReTAG's answers were short:
    # 5-10 reduce points from 2-3 batches against global's 28-36)
    "retag-general-p25-cut600-map1500": ("retag", {"RETAG_TOPICS": "false", "TOP_P_SHARE": "0.25",
                                                   "RETAG_REPORT_TOKENS": "600",
                                                   "MAP_CONTEXT_TOKENS": "1500"}),
    "retag-general-p35-cut600": ("retag", {"RETAG_TOPICS": "false", "TOP_P_SHARE": "0.35",
                                           "RETAG_REPORT_TOKENS": "600"}),
    # only communities of 2+ entities (25 of Carol's 48 level-0 reports are one entity's
    # description: the hand check found them cited for claims they cannot hold), half of them
    "retag-general-min2-p50-cut600": ("retag", {"RETAG_TOPICS": "false", "TOP_P_SHARE": "0.5",
                                                "RETAG_REPORT_TOKENS": "600",
                                                "RETAG_MIN_COMMUNITY_SIZE": "2"}),
    # one answer call over the retrieved reports, best-ranked first, instead of map-reduce (the
    # map rewrote 12 reports as 5-10 points and the reduce kept one paragraph of them)
    "retag-general-p25-cut600-direct": ("retag", {"RETAG_TOPICS": "false",
                                                  "TOP_P_SHARE": "0.25",
                                                  "RETAG_REPORT_TOKENS": "600",
                                                  "RETAG_DIRECT_TOKENS": "6000"}),
    # ... with the text units behind those reports (the issue's "map over the retrieved
    # reports alone, and with their best-supported text units"), 2,000 of the 6,000 tokens
    "retag-general-p25-cut600-direct-units": ("retag", {"RETAG_TOPICS": "false",
                                                        "TOP_P_SHARE": "0.25",
                                                        "RETAG_REPORT_TOKENS": "600",
                                                        "RETAG_DIRECT_TOKENS": "6000",
                                                        "RETAG_TEXT_UNIT_TOKENS": "2000"}),
    # the answer quoted from those reports: their sentences matching the question and its
    # keywords best, up to 160 words (the written one-call answers' mean length on the tuning
    # questions), no answer call; with nothing to quote the one call writes it, as ask's default
    "retag-general-p25-cut600-extract160": ("retag", {"RETAG_TOPICS": "false",
                                                      "TOP_P_SHARE": "0.25",
                                                      "RETAG_REPORT_TOKENS": "600",
                                                      "RETAG_EXTRACT_WORDS": "160",
                                                      "RETAG_DIRECT_TOKENS": "6000"}),
    "local": ("local", {}),
    # ask's default for the embedded model: one classification call routes a global question to
    # retag (with the embedded defaults above: the quoted answer) and a specific one to local
    "auto": ("auto", {}),
}
# an arm without the one-call answer is map-reduce, and one without the extract is written by
# the model: said explicitly, since the embedded model's defaults changed after those arms were
# first measured
for _method, _env in ARMS.values():
    if _method == "retag":
        _env.setdefault("RETAG_DIRECT_TOKENS", "0")
        _env.setdefault("RETAG_EXTRACT_WORDS", "0")


def arm_name(name: str, arm: str) -> str:
    return f"{name}-{arm}"


def run_arm(args: argparse.Namespace, arm: str) -> int:
    """One arm through nugget_compare with its overrides; its exit code."""
    method, env = ARMS[arm]
    cmd = [sys.executable, "-m", "benchmarks.quality.nugget_compare", str(args.nuggets),
           "--name", arm_name(args.name, arm), "--methods", method]
    for flag, value in (("--level", args.level), ("--questions", args.questions)):
        if value is not None:
            cmd += [flag, str(value)]
    if args.resume:
        cmd.append("--resume")
    print(f"arm {arm}: {method} with {env or 'the defaults'}", file=sys.stderr, flush=True)
    # this checkout's benchmarks and package first, from any working folder
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return subprocess.call(cmd, env={**os.environ, **env, "PYTHONPATH": path},
                           stdout=subprocess.DEVNULL)


def row(name: str, arm: str) -> dict[str, Any] | None:
    """One arm's summary from its saved results, or None when it has none yet."""
    data = read_results(RESULTS / f"nuggets-{arm_name(name, arm)}.json")
    if data is None:
        return None
    method, env = ARMS[arm]
    nug, cost = data["scores"]["nuggets"][method], data["scores"]["cost"][method]
    answers = [a for a in data["answers"] if a["method"] == method]
    matched = sum(a["nuggets"]["matched"] for a in answers if a.get("nuggets"))
    total = sum(a["nuggets"]["total"] for a in answers if a.get("nuggets"))
    return {"arm": arm, "method": method, "settings": env, "answers": len(answers),
            # the no-answer (trace.no_answer: every reply refused) is no answer either
            "failed": sum(1 for a in answers if a.get("error")
                          or (a.get("trace") or {}).get("no_answer")),
            "nuggets": f"{matched}/{total}", "recall": nug["recall"]["mean"],
            # a longer answer holds more nuggets: the length beside the recall
            "words": sum(len(without_references(a["answer"] or "").split()) for a in answers)
            / max(1, len(answers)),
            "supported": nug["supported"]["mean"] if nug["supported"]["n"] else None,
            "prompt_tokens": cost["prompt_tokens"]["mean"], "calls": cost["llm_calls"]["mean"],
            "seconds": cost["seconds"]["mean"], "model": data.get("model"),
            "level": data.get("level")}


def table(rows: list[dict[str, Any]]) -> str:
    base = next((r["prompt_tokens"] for r in rows if r["arm"] == "global"), None)
    out = ["| arm | nuggets | recall | words | supported | prompt tok. | x global | calls | s | "
           "failed |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['prompt_tokens'] / base:.2f}" if base else "-"
        sup = "-" if r["supported"] is None else f"{r['supported']:.2f}"
        words = f"{r['words']:.0f}" if "words" in r else "-"
        out.append(f"| {r['arm']} | {r['nuggets']} | {r['recall']:.3f} | {words} | {sup} | "
                   f"{r['prompt_tokens']:,.0f} | {ratio} | {r['calls']:.1f} | "
                   f"{r['seconds']:.0f} | {r['failed']} |")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nuggets", type=Path, help="a nuggets file (benchmarks/nuggets/*.json)")
    ap.add_argument("--name", required=True, help="bench-results/retag-ablation-NAME.*")
    ap.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated of {list(ARMS)}")
    ap.add_argument("--level", type=int, default=None)
    ap.add_argument("--questions", type=int, default=None, help="only the first N questions")
    ap.add_argument("--resume", action="store_true", help="keep each arm's finished answers")
    ap.add_argument("--table", action="store_true", help="only the table of the saved arms")
    args = ap.parse_args()
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    if unknown := [a for a in arms if a not in ARMS]:
        ap.error(f"unknown arms {unknown}: one of {list(ARMS)}")
    failed = [] if args.table else [a for a in arms if run_arm(args, a) != 0]
    rows = [r for a in arms if (r := row(args.name, a)) is not None]
    md = table(rows)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"retag-ablation-{args.name}.md").write_text(md)
    (RESULTS / f"retag-ablation-{args.name}.json").write_text(json.dumps(
        {"name": args.name, "nuggets_file": str(args.nuggets), "arms": rows,
         "failed_arms": failed}, indent=2) + "\n")
    print(md)
    for a in failed:
        print(f"failed: arm {a} (its answers: bench-results/nuggets-"
              f"{arm_name(args.name, a)}.json)", file=sys.stderr)
    sys.exit(3 if failed else 0)


if __name__ == "__main__":
    main()
