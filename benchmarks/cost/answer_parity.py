"""Benchmark (not a test): do issue 18's savings change the answers? Global search and ReTAG on
BBC articles with fakellm, the index built twice on the same articles:

* ``every_call``: every community reported by the LLM (``REPORT_COMPOSE_MAX_ENTITIES=0``), a
  summary for every merge (``SUMMARY_MIN_DESCRIPTIONS=2``), one gleaning round (``GLEAN=1``) -
  what the index paid before issue 18 (report reuse by key stays: a reused report is the
  same text);
* ``defaults``: today's defaults (tiny communities composed, few descriptions joined, no
  gleaning).

Then the same global questions by ``global`` and ``retag`` through the eval (claim metrics, no
judge): claims per answer (comprehensiveness), clusters (diversity), answers whose text cites
a report (``[Data: Reports (...)]``), LLM calls and prompt tokens per answer; and the index's
calls and prompt tokens.

    .venv/bin/python -m benchmarks.cost.answer_parity [--articles 20]
    # a real model on another corpus (the embedded one: --local), the first K questions
    .venv/bin/python -m benchmarks.cost.answer_parity --local --corpus examples/sample-corpus \
        --questions 2 --name sample-smollm2

A changed query step on the index the last run left (its last variant), no re-indexing:
``--variant defaults --reuse-index --name NAME``.

Uses the benchmark Neo4j (RETAG_BENCH_BOLT_PORT, default 7689; EMPTIED). Writes
bench-results/answer-parity-<N or name>.json.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from benchmarks.common import (
    RESULTS,
    bench_settings,
    endpoint_args,
    endpoint_values,
    fakellm,
    machine,
    wipe,
    with_llm,
)
from benchmarks.cost.llm_cost import copy_articles
from neo4j_retag.config import Settings
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


def run(corpus: Path, url: str | None, endpoint: dict[str, Any], questions: list[str],
        work: Path, variants: dict[str, dict[str, Any]], reuse: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, extra in variants.items():
        # a real model shares one response cache across the variants: the second pays only
        # what differs (fakellm runs with the cache off, as llm_cost.py does)
        cache = work / ("cache" if endpoint else f"cache-{name}")
        settings = bench_settings(url or "http://127.0.0.1:9/v1", **extra).model_copy(
            update={"llm_cache_dir": cache, **endpoint})
        with Graph(settings) as graph:
            usage = Usage()
            if not reuse:  # else: the questions again on the index the last run left
                wipe(graph)
                with_llm(settings, usage, lambda llm, s=settings, g=graph: run_ingest(
                    g, llm, s, [corpus]))
            chat = {k: v for k, v in usage.stages.items() if k != "embed"}
            result = with_llm(settings, Usage(), lambda llm, s=settings, g=graph: run_eval(
                g, llm, s, ["global", "retag"],
                questions=[EvalQuestion(question=q) for q in questions], judged=False))
        data = result.model_dump(mode="json")
        out[name] = {
            "index": {"chat_calls": sum(v.calls for v in chat.values()),
                      "prompt_tokens": sum(v.prompt_tokens for v in chat.values())},
            "claims": data["claims"], "cost": data["cost"],
            "answers_citing_a_report": {m: sum("Reports (" in (a.answer or "")
                                               for a in result.answers if a.method == m)
                                        for m in ("global", "retag")},
            "answers": [a.model_dump(mode="json") for a in result.answers],
            "failures": [f.line() for f in result.failures]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=int, default=20)
    ap.add_argument("--corpus", type=Path, default=None, help="instead of BBC articles")
    ap.add_argument("--questions", type=int, default=len(QUESTIONS))
    endpoint_args(ap, required=False)
    ap.add_argument("--name", default=None)
    ap.add_argument("--baseline-glean", type=int, default=1,
                    help="GLEAN of the every_call variant (0: the answers' side only, faster)")
    ap.add_argument("--variant", choices=sorted(VARIANTS), default=None,
                    help="this variant only")
    ap.add_argument("--reuse-index", action="store_true",
                    help="ask again on the index the last run left (with --variant: the one "
                         "it built last; a changed query step measured without re-indexing)")
    args = ap.parse_args()
    if args.reuse_index and not args.variant:
        ap.error("--reuse-index needs --variant (the graph holds one index)")
    variants = {k: dict(v) for k, v in VARIANTS.items()
                if args.variant in (None, k)}
    if "every_call" in variants:
        variants["every_call"]["glean"] = args.baseline_glean
    questions = QUESTIONS[:args.questions]
    endpoint: dict[str, Any] = {}
    if args.local or args.base_url:  # bench_settings names the model "bench": the real one
        endpoint = {**endpoint_values(args), "llm_cache": True,
                    "openai_model": args.model or Settings().llm.model}
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        corpus = args.corpus
        if corpus is None:
            corpus = Path(tmp) / f"bbc-{args.articles}"
            copy_articles(corpus, args.articles)
        url = None if endpoint else stack.enter_context(fakellm())
        res = run(corpus, url, endpoint, questions, Path(tmp), variants, args.reuse_index)
    out = {"corpus": str(args.corpus or f"BBC-{args.articles}"), "questions": questions,
           "variants": variants, "index_reused": args.reuse_index, "results": res,
           "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"answer-parity-{args.name or args.articles}.json"
    path.write_text(json.dumps(out, indent=2, default=str))
    for name, r in res.items():
        print(name, r["index"], {m: (c["claims"]["mean"], c["clusters"]["0.5"]["mean"])
                                 for m, c in r["claims"].items()},
              r["answers_citing_a_report"], r["failures"])
    print("wrote", path)


if __name__ == "__main__":
    main()
