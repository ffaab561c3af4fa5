"""Benchmark (not a test): the framework's own cost of `ingest` on the 200 BBC articles.

The LLM is ../shared/tools/fakellm (instant, deterministic, OpenAI-compatible), so what is
measured is our pipeline + Neo4j + GDS. Targets (issue 10): >= 5,000 graph elements/s written
during extraction, the whole run <= 9 s on 2 cores (Microsoft GraphRAG 3.3: 515 s as
installed, 59-61 s with its memory tracing patched out). Besides wall seconds it reports the
CPU seconds of our process and of Neo4j (on a shared machine the wall time mostly measures the
other jobs) and the load average.

    .venv/bin/python -m benchmarks.speed.ingest_bbc [--corpus DIR] [--repeat 3]
        [--no-embeddings | --embed-url URL]

Embeddings (issue 19) are on as in `ingest`: fakellm serves /v1/embeddings too, with
``--embed-dim`` dimensions (384, the default model's; 1536 is OpenAI's text-embedding-3-small);
``--embed-url`` sends them to another endpoint (`local`: the real model in process, its
cost), ``--no-embeddings`` measures the run without the embed stage. Results:
bench-results/ingest_bbc[-SUFFIX].json.

Starts (if needed) and EMPTIES a benchmark Neo4j of its own: bolt 7689, http 7476, data in
<NEO4J_RETAG_HOME>/neo4j-data-bench. Stop it with
`NEO4J_BOLT_PORT=7689 NEO4J_HTTP_PORT=7476 NEO4J_DATA=... neo4j-retag neo4j stop`.
"""

from __future__ import annotations

import argparse
import json
import statistics

from benchmarks.common import (
    RESULTS,
    SHARED,
    bench_settings,
    fakellm,
    ingest,
    machine,
)


def compare(args: argparse.Namespace) -> None:
    runs: dict[str, list[dict]] = {"off": [], "on": []}
    with fakellm("--embed-dim", str(args.embed_dim)) as url:
        settings = bench_settings(url)
        for _ in range(args.repeat):
            for key in runs:
                runs[key].append(ingest(settings.model_copy(
                    update={"embeddings": key == "on"}), args.corpus))
    out: dict = {"embed_dim": args.embed_dim, "machine": machine()}
    for key, rs in runs.items():
        med = sorted(rs, key=lambda r: r["seconds_total"])[len(rs) // 2]
        out[key] = {"runs_seconds_total": [r["seconds_total"] for r in rs],
                    "median_seconds_total": med["seconds_total"],
                    "median_run": {k: med[k] for k in (
                        "seconds_per_stage", "cpu_seconds_ours", "cpu_seconds_neo4j",
                        "cpu_seconds_fakellm", "llm_calls", "embed_calls", "embed_tokens",
                        "embedded")}}
    out["ratio_on_off"] = round(out["on"]["median_seconds_total"]
                                / out["off"]["median_seconds_total"], 3)
    print(json.dumps(out, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"ingest_bbc-embeddings-compare-{args.embed_dim}.json").write_text(
        json.dumps(out, indent=2))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "bbc-news"))
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs; the figures are those of the run with the median total")
    ap.add_argument("--no-embeddings", action="store_true", help="no embed stage")
    ap.add_argument("--embed-dim", type=int, default=384, help="fakellm's vector size")
    ap.add_argument("--embed-url", help="embeddings from this endpoint (`local`: the "
                    "local model in process, all-minilm-l6-v2)")
    ap.add_argument("--compare", action="store_true", help="runs without and with embeddings "
                    "in turn (--repeat pairs), so both meet the same machine load; the ratio "
                    "of the medians (issue 19's target: at most 1.3)")
    args = ap.parse_args()
    if args.compare:
        compare(args)
        return
    suffix = ("-no-embeddings" if args.no_embeddings else "-local-embed" if args.embed_url
              else "" if args.embed_dim == 384 else f"-embed-dim-{args.embed_dim}")
    extra: dict = {"embeddings": not args.no_embeddings}
    if args.embed_url:
        extra.update(embedding_base_url=args.embed_url, embedding_model="all-minilm-l6-v2")
    with fakellm("--embed-dim", str(args.embed_dim)) as url:
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
