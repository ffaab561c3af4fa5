"""Benchmark (not a test): do issue 18's savings change the answers? Global search and ReTAG on
BBC articles with fakellm, the index built twice on the same articles:

* ``every_call``: every community reported by the LLM (``REPORT_COMPOSE_MAX_ENTITIES=0``), a
  summary for every merge (``SUMMARY_MIN_DESCRIPTIONS=2``), one gleaning round (``GLEAN=1``) -
  what the index paid before issue 18 (report reuse by key stays: a reused report is the
  same text);
* ``defaults``: today's defaults (tiny communities composed, few descriptions joined, no
  gleaning).

Then the same global questions by ``global`` and ``retag`` through the eval (claim metrics, no
judge): claims per answer (comprehensiveness), clusters (diversity), reports cited, LLM calls
and prompt tokens per answer; and the index's calls and prompt tokens.

    .venv/bin/python benchmarks/answer_parity.py [--articles 20]

Uses the benchmark Neo4j (RETAG_BENCH_BOLT_PORT, default 7689; EMPTIED). Writes
bench-results/answer-parity-<N>.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from common import RESULTS, bench_settings, fakellm, machine, wipe, with_llm
from llm_cost import copy_articles

from neo4j_retag.db import Graph
from neo4j_retag.eval.questions import EvalQuestion
from neo4j_retag.eval.run import run_eval
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import Usage

QUESTIONS = [
    "What are the main themes of these news articles?",
    "Which organisations and people appear most, and what roles do they play?",
    "What economic trends and risks do the articles describe?",
    "What conflicts or disputes are reported?",
    "How do technology and media change in these stories?",
]
VARIANTS = {
    "every_call": {"report_compose_max_entities": 0, "summary_min_descriptions": 2,
                   "glean": 1},
    "defaults": {},
}


def run(n: int, url: str, work: Path) -> dict[str, Any]:
    corpus = work / f"bbc-{n}"
    copy_articles(corpus, n)
    out: dict[str, Any] = {}
    for name, extra in VARIANTS.items():
        settings = bench_settings(url, **extra).model_copy(
            update={"llm_cache_dir": work / f"cache-{name}"})
        with Graph(settings) as graph:
            wipe(graph)
            usage = Usage()
            with_llm(settings, usage, lambda llm, s=settings, g=graph: run_ingest(
                g, llm, s, [corpus]))
            chat = {k: v for k, v in usage.stages.items() if k != "embed"}
            result = with_llm(settings, Usage(), lambda llm, s=settings, g=graph: run_eval(
                g, llm, s, ["global", "retag"],
                questions=[EvalQuestion(question=q) for q in QUESTIONS], judged=False))
        data = result.model_dump(mode="json")
        out[name] = {
            "index": {"chat_calls": sum(v.calls for v in chat.values()),
                      "prompt_tokens": sum(v.prompt_tokens for v in chat.values())},
            "claims": data["claims"], "cost": data["cost"],
            "failures": [f.line() for f in result.failures]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, fakellm() as url:
        res = run(args.articles, url, Path(tmp))
    out = {"articles": args.articles, "questions": QUESTIONS, "variants": VARIANTS,
           "results": res, "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"answer-parity-{args.articles}.json"
    path.write_text(json.dumps(out, indent=2, default=str))
    for name, r in res.items():
        print(name, r["index"], {m: (c["claims"]["mean"], c["clusters"]["0.5"]["mean"])
                                 for m, c in r["claims"].items()}, r["failures"])
    print("wrote", path)


if __name__ == "__main__":
    main()
