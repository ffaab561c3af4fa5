"""Shared set-up for benchmarks: fakellm on a free port and the benchmark Neo4j (bolt 7689)."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from neo4j_retag.config import Settings
from neo4j_retag.db import Graph, vectors
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import LLM, Usage, run_with_llm
from neo4j_retag.ops.stats import collect
from neo4j_retag.services import neo4j_local

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (a git worktree sits one level deeper: look further up)
SHARED = next((p / "shared" for p in ROOT.parents if (p / "shared" / "corpora").is_dir()),
              ROOT.parent / "shared")
RESULTS = ROOT / "bench-results"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def fakellm(*options: str, port: int | None = None) -> Iterator[str]:
    """fakellm (../shared/tools/fakellm) on ``port`` (default a free one), with its
    ``options`` (e.g. "--delay-ms", "500"); yields its base URL."""
    port = port or free_port()
    # its canned answers are about nothing: the answer check (llm.degenerate) would refuse
    # them; settings and the CLI processes a benchmark starts read this
    os.environ["LLM_ANSWER_CHECK"] = "false"
    proc = subprocess.Popen([sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
                             str(port), "--quiet", *options], stderr=subprocess.DEVNULL)
    FAKELLM_PID[0] = proc.pid
    # answering before the first call: an ingest's first call (the embedding probe) comes at
    # once when Neo4j is already up, and "cannot reach" is not retried
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()


def bench_settings(base_url: str, **extra: Any) -> Settings:
    """The benchmark Neo4j (bolt 7689, http 7476, its own data folder; RETAG_BENCH_BOLT_PORT /
    RETAG_BENCH_HTTP_PORT for another), started if needed."""
    home = Settings().home
    bolt = int(os.environ.get("RETAG_BENCH_BOLT_PORT", "7689"))
    http = int(os.environ.get("RETAG_BENCH_HTTP_PORT", "7476"))
    data = home / ("neo4j-data-bench" if bolt == 7689 else f"neo4j-data-bench-{bolt}")
    settings = Settings(openai_base_url=base_url, openai_model="bench", llm_concurrency=16,
                        llm_cache=False, neo4j_bolt_port=bolt, neo4j_http_port=http,
                        neo4j_data=data, neo4j_heap="2g",
                        neo4j_pagecache="512m", **extra)
    neo4j_local.start(settings)
    return settings


def endpoint_args(ap: argparse.ArgumentParser, required: bool = True) -> None:
    """The LLM endpoint options of the real-model benchmarks: --local (the local server on
    --llm-port, default LLM_PORT or 8088) or --base-url, and --model; one of the first two
    unless not ``required`` (the benchmark then has an endpoint of its own, fakellm)."""
    how = ap.add_mutually_exclusive_group(required=required)
    how.add_argument("--local", action="store_true",
                     help="the local llama.cpp server on --llm-port (the embedded model)")
    how.add_argument("--base-url", help="an OpenAI-compatible endpoint (…/v1)")
    ap.add_argument("--llm-port", type=int, default=int(os.environ.get("LLM_PORT", "8088")))
    ap.add_argument("--model", default=None, help="model name sent (OPENAI_MODEL)")


def endpoint_values(args: argparse.Namespace) -> dict[str, Any]:
    """Settings values for the endpoint ``endpoint_args`` parsed, LLM cache off."""
    values: dict[str, Any] = {"llm_cache": False}
    if args.local:  # the local server, whatever OPENAI_BASE_URL says
        values.update(openai_base_url=None, llm_port=args.llm_port)
    else:
        values["openai_base_url"] = args.base_url
    if args.model:
        values["openai_model"] = args.model
    return values


def machine() -> dict[str, Any]:
    """What the figures were measured on: cores and the load average (1, 5, 15 min) at the end
    (other jobs on a shared machine slow Neo4j down most)."""
    return {"cpus": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()]}


# the running fakellm's process id (scale.py's child process measures its parent's)
FAKELLM_PID: list[int | None] = [None]


def neo4j_cpu_seconds(settings: Settings) -> float | None:
    """CPU seconds (user + system) the benchmark Neo4j's JVM has used so far (Linux /proc)."""
    return cpu_seconds(neo4j_local.status(settings).get("pid"))


def fakellm_cpu_seconds() -> float | None:
    """CPU seconds the running fakellm has used so far: the fake LLM's share of the machine."""
    return cpu_seconds(FAKELLM_PID[0])


def cpu_seconds(pid: object) -> float | None:
    """CPU seconds (user + system) of process ``pid`` so far, from /proc; None if unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def with_llm(settings: Settings, usage: Usage,
             fn: Callable[[LLM], Awaitable[T]]) -> T:
    return run_with_llm(settings, fn, usage)


def written(graph: Graph) -> tuple[dict[str, Any], int, int]:
    """What an ingest left in the graph: ``collect``'s counts, the MENTIONS relationships, and
    the graph elements written (text units, entities, relationships, claims, mentions)."""
    stats = collect(graph)
    mentions = graph.driver.execute_query(
        "RETURN COUNT { ()-[:MENTIONS]->() } AS n").records[0]["n"]
    elements = (stats["text_units"] + stats["entities"] + stats["relationships"]
                + stats["claims"] + mentions)
    return stats, mentions, elements


def wipe(graph: Graph) -> None:
    with graph.driver.session(database=graph.database) as s:
        s.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS").consume()
    vectors.drop(graph)  # vector indexes are made with a dimension: a fresh graph has none


def ingest(settings: Settings, corpus: Path | str) -> dict[str, Any]:
    """Empty the benchmark graph, ingest ``corpus`` (no topics), return the measurements:
    counts, seconds per stage, write rate, LLM and embedding calls, CPU seconds of ours,
    Neo4j's and fakellm's (ingest_bbc.py; recall, ask_compare and nugget_compare ingest
    with it)."""
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
        "embedding_endpoint": settings.embedding.endpoint(settings.llm),
        "embed_calls": usage.stage("embed").calls,
        "embed_tokens": usage.stage("embed").prompt_tokens,
        "failed_text_units": len(result.text_units_failed),
        "cpu_seconds_ours": round(cpu, 2),
        "cpu_seconds_neo4j": None if neo is None or neo0 is None else round(neo - neo0, 2),
        "cpu_seconds_fakellm": None if fake is None or fake0 is None else round(fake - fake0, 2),
    }
