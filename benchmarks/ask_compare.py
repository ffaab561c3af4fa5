"""Benchmark (not a test): ReTAG vs GraphRAG global search on one graph, as ReTAG measures it
(Kim et al. 2025, Tables 5-7): LLM calls, prompt tokens and wall time per question and level.

    .venv/bin/python benchmarks/ask_compare.py [--reingest] [--top-p 200]

Uses fakellm and the benchmark Neo4j (see common.py); ingests ../shared/corpora/bbc-news and
builds topics first when the benchmark graph has no reports. Goal: at level >= 2, retag uses
<= 35% of global's prompt tokens.
"""

from __future__ import annotations

import argparse
import json
import time

from common import RESULTS, SHARED, bench_settings, fakellm, with_llm
from ingest_bbc import ingest

from neo4j_retag.db import Graph
from neo4j_retag.index.topics import build_topics
from neo4j_retag.llm import Usage
from neo4j_retag.model import GENERAL, Query
from neo4j_retag.query.global_search import ask_global
from neo4j_retag.query.retag import ask_retag
from neo4j_retag.query.retrieval import levels

QUESTIONS = [
    "What are the main themes across this news corpus?",
    "How did technology companies and their products feature in the news?",
    "What were the main political debates and who took part in them?",
    "Which sporting events and athletes were in the news, and why?",
    "What were the major business and economic developments?",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reingest", action="store_true")
    ap.add_argument("--top-p", type=int, default=200)
    args = ap.parse_args()
    rows = []
    with fakellm() as url:
        settings = bench_settings(url)
        with Graph(settings) as graph:
            if args.reingest or not levels(graph, GENERAL):
                ingest(settings, SHARED / "corpora" / "bbc-news")
            if not graph.run("query/topics"):
                with_llm(settings, Usage(), lambda llm: build_topics(graph, llm, settings))
            for level in levels(graph, GENERAL):
                for q in QUESTIONS:
                    for method in ("global", "retag"):
                        usage = Usage()
                        t0 = time.perf_counter()
                        if method == "global":
                            a = with_llm(settings, usage, lambda llm, q=q, lv=level: ask_global(
                                graph, llm, settings, Query(question=q, level=lv)))
                        else:
                            a = with_llm(settings, usage, lambda llm, q=q, lv=level: ask_retag(
                                graph, llm, settings,
                                Query(question=q, level=lv, top_p=args.top_p)))
                        rows.append({
                            "level": level, "method": method, "question": q,
                            "reports": a.trace.reports_retrieved, "scope": a.trace.scope,
                            "llm_calls": usage.total.calls,
                            "prompt_tokens": usage.total.prompt_tokens,
                            "seconds": round(time.perf_counter() - t0, 3)})
    summary = []
    for level in sorted({r["level"] for r in rows}):
        g = [r for r in rows if r["level"] == level and r["method"] == "global"]
        t = [r for r in rows if r["level"] == level and r["method"] == "retag"]
        mean = lambda rs, k: sum(r[k] for r in rs) / len(rs)  # noqa: E731
        summary.append({
            "level": level, "global_reports": mean(g, "reports"),
            "retag_reports": mean(t, "reports"),
            "global_prompt_tokens": round(mean(g, "prompt_tokens")),
            "retag_prompt_tokens": round(mean(t, "prompt_tokens")),
            "prompt_token_ratio": round(mean(t, "prompt_tokens") / mean(g, "prompt_tokens"), 3),
            "global_calls": mean(g, "llm_calls"), "retag_calls": mean(t, "llm_calls"),
            "global_seconds": round(mean(g, "seconds"), 3),
            "retag_seconds": round(mean(t, "seconds"), 3)})
    out = {"top_p": args.top_p, "questions": QUESTIONS, "per_level": summary, "runs": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ask_compare.json").write_text(json.dumps(out, indent=2))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
