"""Benchmark (not a test): ReTAG vs GraphRAG global search on one graph, as ReTAG measures it
(Kim et al. 2025, Tables 5-7): LLM calls, prompt tokens and wall time per question and level;
and GraphRAG's DRIFT search beside them (issue 19: its calls, prompt tokens and seconds per
question, with its phases apart: primer, local, reduce).

    .venv/bin/python -m benchmarks.cost.ask_compare [--reingest] [--top-p 200]
        [--methods global,retag,drift] [--drift-depth 3 --drift-k 20 --drift-folds 5]

Uses fakellm and the benchmark Neo4j (see common.py); ingests ../shared/corpora/bbc-news and
builds topics first when the benchmark graph has no reports (with embeddings: fakellm serves
/v1/embeddings). Goal: at level >= 2, retag uses <= 35% of global's prompt tokens.
"""

from __future__ import annotations

import argparse
import json
import time

from benchmarks.common import RESULTS, SHARED, bench_settings, fakellm, ingest, machine, with_llm
from neo4j_retag.db import Graph
from neo4j_retag.index.topics import build_topics
from neo4j_retag.llm import Usage
from neo4j_retag.model import GENERAL, Query
from neo4j_retag.query.drift import ask_drift
from neo4j_retag.query.global_search import ask_global
from neo4j_retag.query.retag import RetagOptions, ask_retag
from neo4j_retag.query.retrieval import levels

QUESTIONS = [
    "What are the main themes across this news corpus?",
    "How did technology companies and their products feature in the news?",
    "What were the main political debates and who took part in them?",
    "Which sporting events and athletes were in the news, and why?",
    "What were the major business and economic developments?",
]


METHODS = {"global": ask_global, "retag": ask_retag, "drift": ask_drift}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reingest", action="store_true")
    ap.add_argument("--top-p", type=int, default=200)
    ap.add_argument("--methods", default="global,retag,drift")
    ap.add_argument("--drift-depth", type=int, default=3, help="DRIFT_N_DEPTH (GraphRAG 3)")
    ap.add_argument("--drift-k", type=int, default=20, help="DRIFT_K_FOLLOWUPS (GraphRAG 20)")
    ap.add_argument("--drift-folds", type=int, default=5, help="DRIFT_PRIMER_FOLDS (5)")
    ap.add_argument("--out", default="ask_compare.json")
    args = ap.parse_args()
    methods = args.methods.split(",")
    rows = []
    with fakellm() as url:
        settings = bench_settings(url, drift_n_depth=args.drift_depth,
                                  drift_k_followups=args.drift_k,
                                  drift_primer_folds=args.drift_folds)
        with Graph(settings) as graph:
            if args.reingest or not levels(graph, GENERAL):
                ingest(settings, SHARED / "corpora" / "bbc-news")
            if "retag" in methods and not graph.run("query/topics"):
                with_llm(settings, Usage(), lambda llm: build_topics(graph, llm, settings))
            for level in levels(graph, GENERAL):
                for q in QUESTIONS:
                    for method in methods:
                        usage = Usage()
                        query = Query(question=q, level=level, options=RetagOptions(
                            top_p=args.top_p if method == "retag" else None))
                        t0 = time.perf_counter()
                        a = with_llm(settings, usage, lambda llm, m=method, qy=query: METHODS[m](
                            graph, llm, settings, qy))
                        row = {
                            "level": level, "method": method, "question": q,
                            "reports": a.trace.reports_retrieved, "scope": a.trace.scope,
                            "llm_calls": usage.total.calls,
                            "prompt_tokens": usage.total.prompt_tokens,
                            "seconds": round(time.perf_counter() - t0, 3),
                            "cited": len(a.citations)}
                        if a.trace.drift:
                            d = a.trace.drift
                            row["drift"] = {
                                "steps": len(d.steps), "followups_left": d.followups_left,
                                "primer_by": d.primer_by, "failures": len(a.trace.failures),
                                "phases": {k: v.model_dump() for k, v in d.phases.items()},
                                "seconds": {k: a.trace.seconds.get(k) for k in d.phases}}
                        rows.append(row)
    summary = []

    def mean(rs: list[dict], k: str) -> float:
        return sum(r[k] for r in rs) / len(rs)

    for level in sorted({r["level"] for r in rows}):
        entry: dict[str, object] = {"level": level}
        by = {m: [r for r in rows if r["level"] == level and r["method"] == m] for m in methods}
        for m, rs in by.items():
            entry |= {f"{m}_reports": mean(rs, "reports"), f"{m}_calls": mean(rs, "llm_calls"),
                      f"{m}_prompt_tokens": round(mean(rs, "prompt_tokens")),
                      f"{m}_seconds": round(mean(rs, "seconds"), 3)}
        if by.get("global") and by.get("retag"):
            entry["prompt_token_ratio"] = round(
                mean(by["retag"], "prompt_tokens") / mean(by["global"], "prompt_tokens"), 3)
        summary.append(entry)
    out = {"top_p": args.top_p, "methods": methods,
           "drift": {"n_depth": args.drift_depth, "k_followups": args.drift_k,
                     "primer_folds": args.drift_folds},
           "questions": QUESTIONS, "per_level": summary, "runs": rows, "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / args.out).write_text(json.dumps(out, indent=2))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
