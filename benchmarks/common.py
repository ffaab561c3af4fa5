"""Shared set-up for benchmarks: fakellm on a free port and the benchmark Neo4j (bolt 7689)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.llm import LLM, Usage, run_with_llm
from neo4j_retag.server import neo4j_local

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (or beside the folder of git worktrees, e.g. wt/<branch>)
SHARED = next((p / "shared" for p in ROOT.parents[:2] if (p / "shared").is_dir()),
              ROOT.parent / "shared")
RESULTS = ROOT / "bench-results"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def fakellm(*options: str) -> Iterator[str]:
    """fakellm (../shared/tools/fakellm) on a free port, with its ``options`` (e.g.
    "--delay-ms", "500"); yields its base URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
                             str(port), "--quiet", *options], stderr=subprocess.DEVNULL)
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


def with_llm(settings: Settings, usage: Usage,
             fn: Callable[[LLM], Awaitable[T]]) -> T:
    return run_with_llm(settings, fn, usage)


def wipe(graph: Graph) -> None:
    with graph.driver.session(database=graph.database) as s:
        s.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS").consume()
