"""Benchmark (not a test): the framework's own cost of `ingest` on the 200 BBC articles.

The LLM is ../shared/tools/fakellm (instant, deterministic, OpenAI-compatible), so what is
measured is our pipeline + Neo4j + GDS. Targets (issue 10): >= 5,000 graph elements/s written
during extraction, the whole run <= 9 s on 2 cores (Microsoft GraphRAG 3.3: 515 s as
installed, 59-61 s with its memory tracing patched out). Besides wall seconds it reports the
CPU seconds of our process and of Neo4j (on a shared machine the wall time mostly measures the
other jobs) and the load average.

    .venv/bin/python benchmarks/ingest_bbc.py [--corpus DIR] [--repeat 3]
        [--no-embeddings | --embed-url URL]

Embeddings (issue 19) are on as in `ingest`: fakellm serves /v1/embeddings too (1536
dimensions, the size of OpenAI's text-embedding-3-small); ``--embed-url`` sends them to
another endpoint (the local embedding server: the real model's cost), ``--no-embeddings``
measures the run without the embed stage. Results: bench-results/ingest_bbc[-SUFFIX].json.

Starts (if needed) and EMPTIES a benchmark Neo4j of its own: bolt 7689, http 7476, data in
<NEO4J_RETAG_HOME>/neo4j-data-bench. Stop it with
`NEO4J_BOLT_PORT=7689 NEO4J_HTTP_PORT=7476 NEO4J_DATA=... neo4j-retag neo4j stop`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from common import (
    RESULTS,
    SHARED,
    bench_settings,
    fakellm,
    fakellm_cpu_seconds,
    machine,
    neo4j_cpu_seconds,
    wipe,
    with_llm,
    written,
)

from neo4j_retag.db import Graph
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import Usage


def ingest(settings, corpus) -> dict:
    """Empty the benchmark graph, ingest ``corpus``, return the measurements."""
    with Graph(settings) as graph:
        wipe(graph)
        usage = Usage()
        cpu0, neo0, fake0 = (time.process_time(), neo4j_cpu_seconds(settings),
                             fakellm_cpu_seconds())
        t0 = time.perf_counter()
        result = with_llm(settings, usage, lambda llm: run_ingest(
            graph, llm, settings, [Path(corpus)], topics=False))
        total = time.perf_counter() - t0
        cpu, neo, fake = (time.process_time() - cpu0, neo4j_cpu_seconds(settings),
                          fakellm_cpu_seconds())
        stats, mentions, elements = written(graph)
    return {
        "corpus": str(corpus), "documents": stats["documents"],
        "text_units": stats["text_units"], "entities": stats["entities"],
        "relationships": stats["relationships"], "claims": stats["claims"],
        "mentions": mentions, "communities": stats["communities"],
        "levels": [(lv["level"], lv["communities"]) for lv in stats["levels"]],
        "seconds_total": round(total, 2), "seconds_per_stage": result.seconds,
        "graph_elements_written": elements,
        "write_rate_elements_per_s": round(elements / max(result.seconds["extract"], 1e-9)),
        "llm_calls": usage.total.calls, "llm_failed": usage.total.failed,
        "embeddings": settings.embedding.enabled, "embedded": result.embeddings.model_dump(),
        "embed_calls": usage.stage("embed").calls,
        "embed_tokens": usage.stage("embed").prompt_tokens,
        "failed_text_units": len(result.text_units_failed),
        "cpu_seconds_ours": round(cpu, 2),
        "cpu_seconds_neo4j": None if neo is None or neo0 is None else round(neo - neo0, 2),
        "cpu_seconds_fakellm": None if fake is None or fake0 is None else round(fake - fake0, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "bbc-news"))
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs; the figures are those of the run with the median total")
    ap.add_argument("--no-embeddings", action="store_true", help="no embed stage")
    ap.add_argument("--embed-url", help="embeddings from this endpoint (e.g. the local "
                    "embedding server, http://127.0.0.1:8089/v1, model all-minilm-l6-v2)")
    args = ap.parse_args()
    suffix = "-no-embeddings" if args.no_embeddings else "-local-embed" if args.embed_url else ""
    extra: dict = {"embeddings": not args.no_embeddings}
    if args.embed_url:
        extra.update(embedding_base_url=args.embed_url, embedding_model="all-minilm-l6-v2")
    with fakellm() as url:
        settings = bench_settings(url, **extra)
        runs = [ingest(settings, args.corpus) for _ in range(args.repeat)]
    totals = [r["seconds_total"] for r in runs]
    out = {**sorted(runs, key=lambda r: r["seconds_total"])[len(runs) // 2],
           "runs_seconds_total": totals, "median_seconds_total": statistics.median(totals),
           "machine": machine()}
    print(json.dumps(out, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"ingest_bbc{suffix}.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
