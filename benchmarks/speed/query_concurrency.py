"""Benchmark (not a test): map-reduce at scale overlaps its map batches (issue 10.4).

GraphRAG's global search (Edge et al. 2024 §3.1.6) over >= 500 community reports, with an LLM
that takes a fixed --delay-ms per call (../shared/tools/fakellm --delay-ms, a threaded server:
concurrent calls overlap like a real API). The map batches go out together, at most
LLM_CONCURRENCY at a time, so `global` should take about
(ceil(batches / concurrency) + 1) x delay (the map rounds, then one reduce call), not
(batches + 1) x delay as one call after another would.

The reports are synthetic (the 122 reports of the Christmas Carol index are too few): --reports
level-0 communities with report text of about --report-tokens tokens each, written straight
into the benchmark graph; nothing else of the index is needed by global search.

    .venv/bin/python -m benchmarks.speed.query_concurrency [--reports 600] [--delay-ms 500]
        [--concurrency 1,4,8,16]

Starts (if needed) and EMPTIES the benchmark Neo4j (bolt 7689, or RETAG_BENCH_BOLT_PORT /
RETAG_BENCH_HTTP_PORT); writes bench-results/query_concurrency.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
import urllib.request

from benchmarks.common import RESULTS, bench_settings, fakellm, wipe, with_llm
from neo4j_retag.db import Graph
from neo4j_retag.llm import Usage
from neo4j_retag.model import Query
from neo4j_retag.query.global_search import ask_global

WORDS = ["market", "policy", "river", "council", "station", "harvest", "merger", "league",
         "festival", "court", "budget", "vaccine", "treaty", "engine", "museum", "border",
         "satellite", "election", "drought", "factory"]
QUESTION = "What are the main themes across these communities?"


def report(i: int, tokens: int, rng: random.Random) -> dict:
    """One synthetic community report: a title, a summary and findings (markdown, as ours)."""
    words = [rng.choice(WORDS) for _ in range(int(tokens * 0.75))]
    body = " ".join(words)
    title = f"Community {i}: {words[0]} and {words[1]}"
    return {"id": i, "title": title, "rank": rng.randint(1, 10),
            "full_content": f"# {title}\n\n{body}\n\n## Findings\n\n- The {words[2]} matters."}


def seed_reports(graph: Graph, n: int, tokens: int) -> None:
    rng = random.Random(7)
    rows = [report(i, tokens, rng) for i in range(n)]
    graph.driver.execute_query(
        "UNWIND $rows AS r CREATE (c:Community {id: r.id, scope: 'general', level: 0, "
        "title: r.title, full_content: r.full_content, summary: r.title, rank: r.rank, "
        "report_status: 'ok'})", rows=rows, database_=graph.database)


def wait_ready(base_url: str) -> None:
    health = base_url.removesuffix("/v1") + "/health"
    for _ in range(100):
        try:
            urllib.request.urlopen(health, timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"fakellm did not answer at {health}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reports", type=int, default=600)
    ap.add_argument("--report-tokens", type=int, default=300)
    ap.add_argument("--delay-ms", type=int, default=500)
    ap.add_argument("--concurrency", default="1,4,8,16")
    args = ap.parse_args()
    delay = args.delay_ms / 1000
    out = {"reports": args.reports, "report_tokens": args.report_tokens, "delay_s": delay,
           "load_average": os.getloadavg(), "cpus": os.cpu_count(), "runs": []}
    with fakellm("--delay-ms", str(args.delay_ms)) as url:
        wait_ready(url)
        base = bench_settings(url)
        with Graph(base) as graph:
            wipe(graph)
            graph.ensure_schema()
            seed_reports(graph, args.reports, args.report_tokens)
            for c in (int(x) for x in args.concurrency.split(",")):
                settings = base.model_copy(update={"llm_concurrency": c})
                usage = Usage()
                t0 = time.perf_counter()
                answer = with_llm(settings, usage, lambda llm, s=settings: ask_global(
                    graph, llm, s, Query(question=QUESTION, level=0)))
                total = time.perf_counter() - t0
                tr = answer.trace
                batches = tr.map_batches
                expected = (math.ceil(batches / c) + 1) * delay
                serial = (batches + 1) * delay
                row = {"concurrency": c, "map_batches": batches,
                       "reports_retrieved": tr.reports_retrieved, "llm_calls": usage.total.calls,
                       "map_parse_failures": tr.map_parse_failures,
                       "seconds_map": round(tr.seconds["map"], 2),
                       "seconds_total": round(total, 2),
                       "expected_s": round(expected, 2), "one_by_one_s": round(serial, 2),
                       "total_over_expected": round(total / expected, 2),
                       "total_over_one_by_one": round(total / serial, 2)}
                out["runs"].append(row)
                print(json.dumps(row))
    out["load_average_after"] = os.getloadavg()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "query_concurrency.json").write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
