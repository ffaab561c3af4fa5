"""Benchmark (not a test): the framework's own cost of `ingest` on the 200 BBC articles.

The LLM is ../shared/tools/fakellm (instant, deterministic, OpenAI-compatible), so what is
measured is our pipeline + Neo4j + GDS. Target: the whole run under 60 s on 2 cores
(Microsoft GraphRAG 3.3: 515 s as installed, 59 s with its memory tracing patched out).

    .venv/bin/python benchmarks/ingest_bbc.py [--corpus DIR] [--concurrency 16]

Starts (if needed) and EMPTIES a benchmark Neo4j of its own: bolt 7689, http 7476, data in
<NEO4J_RETAG_HOME>/neo4j-data-bench. Stop it with
`NEO4J_BOLT_PORT=7689 NEO4J_HTTP_PORT=7476 NEO4J_DATA=... neo4j-retag neo4j stop`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console

from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.ingest import run_ingest
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.server import neo4j_local
from neo4j_retag.stats import collect

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=SHARED / "corpora" / "bbc-news")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--bolt-port", type=int, default=7689)
    args = ap.parse_args()

    port = free_port()
    fake = subprocess.Popen([sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
                             str(port), "--quiet"])
    try:
        home = Settings().home
        settings = Settings(
            openai_base_url=f"http://127.0.0.1:{port}/v1", openai_model="bench",
            llm_concurrency=args.concurrency, llm_cache=False, neo4j_bolt_port=args.bolt_port,
            neo4j_http_port=args.bolt_port - 7689 + 7476,
            neo4j_data=home / "neo4j-data-bench", neo4j_heap="2g", neo4j_pagecache="512m")
        neo4j_local.start(settings)
        time.sleep(1.0)
        with Graph(settings) as graph:
            with graph.driver.session() as s:
                s.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS").consume()
            usage = Usage()

            async def go():
                llm = LLM(settings, usage)
                try:
                    return await run_ingest(settings, [args.corpus], llm, graph,
                                            Console(stderr=True))
                finally:
                    await llm.close()

            t0 = time.perf_counter()
            result = asyncio.run(go())
            total = time.perf_counter() - t0
            stats = collect(graph)
            mentions = graph.driver.execute_query(
                "RETURN COUNT { ()-[:MENTIONS]->() } AS n").records[0]["n"]
        elements = (stats["text_units"] + stats["entities"] + stats["relationships"]
                    + stats["claims"] + mentions)
        out = {
            "corpus": str(args.corpus), "documents": stats["documents"],
            "text_units": stats["text_units"], "entities": stats["entities"],
            "relationships": stats["relationships"], "claims": stats["claims"],
            "mentions": mentions, "communities": stats["communities"],
            "levels": [(lv["level"], lv["communities"]) for lv in stats["levels"]],
            "seconds_total": round(total, 2), "seconds_per_stage": result.seconds,
            "graph_elements_written": elements,
            "write_rate_elements_per_s": round(elements / max(result.seconds["extract"], 1e-9)),
            "llm_calls": usage.total.calls, "llm_failed": usage.total.failed,
            "failed_text_units": len(result.text_units_failed),
        }
        print(json.dumps(out, indent=2))
        dest = ROOT / "bench-results"
        dest.mkdir(exist_ok=True)
        (dest / "ingest_bbc.json").write_text(json.dumps(out, indent=2))
    finally:
        fake.terminate()


if __name__ == "__main__":
    main()
