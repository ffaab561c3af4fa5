"""Benchmark (not a test): `ingest --estimate` against what the ingest then spends, per stage
(issue 18: within ±25 % on the sample corpus with the embedded model).

A fresh Neo4j data folder (a new temporary one unless --data; nothing to calibrate from), on
RETAG_BENCH_BOLT_PORT / RETAG_BENCH_HTTP_PORT (default 7689 / 7476), started here and stopped
at the end; LLM cache off. The estimate is made exactly as `ingest` makes it (the profile
ESTIMATE_PROFILE picks: auto = local-small for the embedded SmolLM2, else remote), then the
ingest runs (topics included) and its usage is grouped by the estimate's stages.

    # the embedded model: the local server already running on LLM_PORT (default 8088)
    .venv/bin/python -m benchmarks.cost.estimate_accuracy --local --name smollm2
    # any OpenAI-compatible endpoint (fakellm, a served Qwen, an API)
    .venv/bin/python -m benchmarks.cost.estimate_accuracy --base-url http://127.0.0.1:8204/v1 \\
        --model fake --name fakellm [--corpus DIR]

Writes bench-results/estimate-accuracy-<name>.json: per stage and in total, estimated and
actual calls / prompt / completion tokens and the error (estimate - actual) / actual.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, ROOT, endpoint_args, endpoint_values, machine, with_llm
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.index.estimate import estimate_ingest, grouped, record_actual, record_estimate
from neo4j_retag.index.estimate_profile import FIGURES
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import Usage
from neo4j_retag.ops.stats import collect
from neo4j_retag.services import neo4j_local


def error(est: float, actual: float) -> float | None:
    return round((est - actual) / actual, 3) if actual else None


def compare(est: dict[str, dict[str, int]], actual: dict[str, dict[str, int]]
            ) -> dict[str, Any]:
    zero = dict.fromkeys(FIGURES, 0)
    stages = {}
    for name in sorted({*est, *actual}):
        e, a = est.get(name, zero), actual.get(name, zero)
        stages[name] = {f: {"estimate": e[f], "actual": a[f], "error": error(e[f], a[f])}
                        for f in FIGURES}
    total = {f: {"estimate": sum(s[f] for s in est.values()),
                 "actual": sum(s[f] for s in actual.values())} for f in FIGURES}
    for t in total.values():
        t["error"] = error(t["estimate"], t["actual"])
    return {"stages": stages, "total": total,
            "within_25_percent": all(t["error"] is not None and abs(t["error"]) <= 0.25
                                     for t in total.values())}


def run(settings: Settings, corpus: Path) -> dict[str, Any]:
    usage = Usage()
    with Graph(settings) as graph:
        graph.ensure_schema()
        est = estimate_ingest(settings, [corpus], graph)
        record_estimate(graph, est)
        t0 = time.perf_counter()
        result = with_llm(settings, usage, lambda llm: run_ingest(graph, llm, settings,
                                                                  [corpus]))
        seconds = time.perf_counter() - t0
        record_actual(graph, usage)
        stats = collect(graph)
    out = compare(est.as_dict(), grouped(usage))
    return {"seconds": round(seconds, 1), "profile": est.profile, "model": est.model,
            "calibrated": est.calibrated, "text_units": est.text_units,
            "text_unit_tokens": est.text_unit_tokens, **out,
            "usage_by_call_stage": usage.as_dict(),
            "failed_items": result.failed_items,
            "reports": result.reports.model_dump(mode="json"),
            "topics_mined": result.topics.mined if result.topics else None,
            "topics": [t.model_dump() for t in result.topics.topics] if result.topics else [],
            "topics_dropped": result.topics.dropped_topics if result.topics else [],
            "corpus_description": result.topics.corpus_description if result.topics else "",
            "graph": {k: stats[k] for k in ("documents", "text_units", "entities",
                                            "relationships", "claims", "communities",
                                            "community_reports", "topics")}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    endpoint_args(ap)
    ap.add_argument("--corpus", type=Path, default=ROOT / "examples" / "sample-corpus")
    ap.add_argument("--data", type=Path, default=None,
                    help="Neo4j data folder (default: a new temporary one)")
    ap.add_argument("--name", required=True, help="bench-results/estimate-accuracy-<name>.json")
    args = ap.parse_args()
    values: dict[str, Any] = {
        **endpoint_values(args),
        "neo4j_bolt_port": int(os.environ.get("RETAG_BENCH_BOLT_PORT", "7689")),
        "neo4j_http_port": int(os.environ.get("RETAG_BENCH_HTTP_PORT", "7476")),
        "neo4j_heap": "1g", "neo4j_pagecache": "256m"}
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or Path(tmp) / "neo4j-data"
        settings = Settings(neo4j_data=data, llm_cache_dir=Path(tmp) / "llm-cache", **values)
        neo4j_local.start(settings)
        try:
            res = {"corpus": str(args.corpus), "endpoint": settings.llm.endpoint,
                   "local": settings.llm.local, **run(settings, args.corpus),
                   "machine": machine()}
        finally:
            neo4j_local.stop(settings)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"estimate-accuracy-{args.name}.json"
    path.write_text(json.dumps(res, indent=2, default=str))
    print(json.dumps({k: res[k] for k in ("profile", "model", "text_units", "total",
                                          "within_25_percent", "seconds")}, indent=2))
    for name, s in res["stages"].items():
        print(f"{name:10s} " + "  ".join(f"{f}: {s[f]['estimate']}/{s[f]['actual']}"
                                         f" ({s[f]['error']})" for f in FIGURES))
    print("wrote", path)


if __name__ == "__main__":
    main()
