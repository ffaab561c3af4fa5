"""Benchmark (issue 46 point 1): the network between the driver and Neo4j fails during
`ingest`, `documents delete` and `ask`, and each ends as a clean run does.

A TCP proxy (tests/tcp_proxy.py) sits between every CLI process and the benchmark Neo4j;
fakellm is the model. Scenarios (name: what the proxy does, once the first text unit is
saved for an ingest; for a delete at once and for an ask 1 s after the process connected:
a run that cannot connect at its start fails at once with one line, by design):

- ``ingest-refuse-5|20|60``: the server gone for 5, 20, 60 s (open connections reset,
  connects refused): exit 0 and the clean run's graph;
- ``ingest-reset``: every open connection reset, three times 1 s apart: the same;
- ``ingest-blackhole-20``: 20 s of silence (nothing answered; then the held connections reset):
  the same;
- ``ingest-silent-drop`` (not run by default: a known gap): every open connection dropped
  for good without a reset while new ones work and the server keeps its side open. The
  driver gives up on its connection at Neo4j's receive timeout hint (120 s), but a write
  transaction that was open on it stays open on the server, holding its locks, so the write
  tried again waits on them (seen: no progress after 7 min);
- ``ingest-past-window``: refused for 40 s with NEO4J_RETRY_SECONDS=10: exit 2 with one error
  line, then `ingest --resume` (server back): exit 0 and the clean graph, LLM calls counted;
- ``delete-refuse-5``: `documents delete` of one article with 5 s refused: exit 0 and the
  graph a clean delete leaves;
- ``ask-refuse-5``: `ask` (a second fakellm answering in 3 s) with 5 s refused: exit 0.

    .venv/bin/python -m benchmarks.faults.neo4j_faults [--articles 5] [--only NAME,...]
        [--fakellm-port PORT] [--out bench-results/neo4j-faults.json]

Uses the benchmark Neo4j (RETAG_BENCH_BOLT_PORT / RETAG_BENCH_HTTP_PORT, default 7689/7476;
NEO4J_DATA for its data folder), which it EMPTIES. Results of earlier --only runs in --out are
kept (one entry per scenario).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, free_port, wipe
from benchmarks.faults.faults import (
    FAKELLM,
    FAKELLM_PORT,
    TEXT_FROM_IDS,
    calls,
    cli_env,
    compare,
    copy_articles,
    fake_stats,
    fakellm,
    snapshot,
)
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.services import neo4j_local
from tests.tcp_proxy import Proxy

ROOT = Path(__file__).resolve().parents[2]

# name: (operation, proxy state, seconds, NEO4J_RETRY_SECONDS or None for the default)
SCENARIOS: dict[str, tuple[str, str, float, float | None]] = {
    "ingest-refuse-5": ("ingest", "refuse", 5, None),
    "ingest-refuse-20": ("ingest", "refuse", 20, None),
    "ingest-refuse-60": ("ingest", "refuse", 60, None),
    "ingest-reset": ("ingest", "reset", 0, None),
    "ingest-blackhole-20": ("ingest", "blackhole", 20, None),
    "ingest-silent-drop": ("ingest", "drop", 0, None),
    "ingest-past-window": ("ingest", "refuse", 40, 10),
    "delete-refuse-5": ("delete", "refuse", 5, None),
    "ask-refuse-5": ("ask", "refuse", 5, None),
}


def bench_neo4j() -> Settings:
    bolt = int(os.environ.get("RETAG_BENCH_BOLT_PORT", "7689"))
    http = int(os.environ.get("RETAG_BENCH_HTTP_PORT", "7476"))
    home = Settings().home
    data = Path(os.environ.get("NEO4J_DATA") or home / (
        "neo4j-data-bench" if bolt == 7689 else f"neo4j-data-bench-{bolt}"))
    settings = Settings(neo4j_bolt_port=bolt, neo4j_http_port=http, neo4j_data=data)
    neo4j_local.start(settings)
    return settings


def cli(env: dict[str, str], *args: str) -> dict[str, Any]:
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "neo4j_retag.cli", *args], env=env,
                       capture_output=True, text=True, timeout=900)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    return {"rc": p.returncode, "seconds": round(time.monotonic() - t0, 1),
            "traceback": "Traceback" in p.stderr,
            "progress_lines": sum("neo4j_retag.db: Neo4j at" in ln for ln in lines),
            "error_lines": [ln for ln in lines if ln.startswith("error:")],
            "stderr_tail": lines[-3:]}


def saved(settings: Settings) -> int:
    with Graph(settings) as g:
        return g.driver.execute_query(
            "MATCH (c:Chunk {extracted: true}) RETURN count(c) AS n").records[0]["n"]


def fault(proxy: Proxy, kind: str, seconds: float, settings: Settings, op: str,
          log: dict[str, Any]) -> threading.Thread:
    """The proxy's fault, in a thread: for an ingest once a text unit is saved."""
    def go() -> None:
        if op == "ingest":
            while saved(settings) < 1:
                time.sleep(0.1)
        else:  # once the process is connected (a run that cannot connect at its start
            # says so at once: no retry); a delete at once, an ask while fakellm answers (3 s)
            while proxy.connections <= log["connections_before"]:
                time.sleep(0.01)
            time.sleep(0.05 if op == "delete" else 1.0)
        log["fault_at_s"] = round(time.monotonic() - log["t0"], 1)
        if kind == "drop":
            log["connections_dropped"] = proxy.drop_all()
        elif kind == "reset":
            log["connections_reset"] = 0
            for _ in range(3):
                log["connections_reset"] += proxy.reset_all()
                time.sleep(1.0)
        else:
            proxy.outage(seconds, kind)
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


def run(name: str, settings: Settings, proxy: Proxy, url: str, slow_url: str, corpus: Path,
        work: Path, clean: dict[str, dict[str, Any]]) -> dict[str, Any]:
    op, kind, seconds, retry = SCENARIOS[name]
    env = cli_env(settings, url, work / f"cache-{name}")
    env |= {"NEO4J_URI": f"bolt://127.0.0.1:{proxy.port}",
            "NEO4J_PASSWORD": settings.neo4j_auth()[1], "PYTHONPATH": str(ROOT)}
    if retry is not None:
        env["NEO4J_RETRY_SECONDS"] = str(retry)
    with Graph(settings) as g:
        wipe(g)
    victim = str(next(p for p in sorted(corpus.rglob("*.txt"))))
    if op != "ingest":  # the graph to delete from or ask: a clean ingest first
        assert cli(env, "ingest", str(corpus), "--quiet")["rc"] == 0
    fake_stats(url, reset=True)
    entry: dict[str, Any] = {"operation": op, "fault": kind, "seconds": seconds,
                             "neo4j_retry_seconds": retry or Settings().neo4j.retry_seconds,
                             "t0": time.monotonic(), "connections_before": proxy.connections}
    t = fault(proxy, kind, seconds, settings, op, entry)
    if op == "ask":  # the slow fakellm: within the client's timeout
        env |= {"OPENAI_BASE_URL": slow_url + "/v1", "LLM_TIMEOUT": "20"}
    args = {"ingest": ("ingest", str(corpus), "--quiet"),
            "delete": ("documents", "delete", victim, "--quiet"),
            "ask": ("ask", "What happened to the economy?")}[op]
    entry["run"] = cli(env, *args)
    t.join()
    entry.pop("t0")
    entry.pop("connections_before")
    # the fault met a call of the run (a progress line), or fell between two of its calls
    entry["fault_seen"] = entry["run"]["progress_lines"] > 0
    entry["llm_calls"] = calls(fake_stats(url))
    if name == "ingest-past-window":
        entry["rerun"] = cli(env, "ingest", "--resume", "--quiet")
        entry["rerun_llm_calls"] = calls(fake_stats(url)) - entry["llm_calls"]
        entry["clean_llm_calls"] = clean["ingest"]["llm_calls"]
    if op in ("ingest", "delete"):
        diff = compare(clean[op]["snapshot"], snapshot(settings))
        entry["equal_to_clean"] = all(d["equal"] for d in diff.values())
        entry["same_structure"] = all(d["equal"] for k, d in diff.items()
                                      if k not in TEXT_FROM_IDS)
        entry["differing"] = {k: d["differing"] for k, d in diff.items() if not d["equal"]}
    last = entry.get("rerun", entry["run"])
    entry["ok"] = (last["rc"] == 0 and not entry["run"]["traceback"]
                   and entry.get("same_structure", True)
                   and (name != "ingest-past-window" or (entry["run"]["rc"] == 2
                                                         and len(entry["run"]["error_lines"])
                                                         == 1)))
    return entry


def baseline(settings: Settings, proxy: Proxy, url: str, corpus: Path, work: Path
             ) -> dict[str, dict[str, Any]]:
    """The clean ingest and the clean delete (through the proxy, no fault)."""
    env = cli_env(settings, url, work / "cache-clean")
    env |= {"NEO4J_URI": f"bolt://127.0.0.1:{proxy.port}",
            "NEO4J_PASSWORD": settings.neo4j_auth()[1], "PYTHONPATH": str(ROOT)}
    with Graph(settings) as g:
        wipe(g)
    fake_stats(url, reset=True)
    ing = cli(env, "ingest", str(corpus), "--quiet")
    assert ing["rc"] == 0, ing
    out = {"ingest": {**ing, "llm_calls": calls(fake_stats(url)), "snapshot": snapshot(settings)}}
    victim = str(next(p for p in sorted(corpus.rglob("*.txt"))))
    dele = cli(env, "documents", "delete", victim, "--quiet")
    assert dele["rc"] == 0, dele
    out["delete"] = {**dele, "snapshot": snapshot(settings)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=5)
    ap.add_argument("--only", default=",".join(n for n in SCENARIOS if n != "ingest-silent-drop"))
    ap.add_argument("--fakellm-port", type=int, default=None)
    ap.add_argument("--out", type=Path, default=RESULTS / "neo4j-faults.json")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = set(names) - set(SCENARIOS)
    if unknown:
        sys.exit(f"unknown scenarios {sorted(unknown)}: {', '.join(SCENARIOS)}")
    FAKELLM_PORT[0] = args.fakellm_port
    result = json.loads(args.out.read_text()) if args.out.exists() else {}
    settings = bench_neo4j()
    work = Path(tempfile.mkdtemp(prefix="retag-neo4j-faults-"))
    n = copy_articles(work / "corpus", args.articles)
    slow_port = free_port()
    slow = subprocess.Popen([sys.executable, str(FAKELLM), str(slow_port), "--quiet",
                             "--delay-ms", "3000"], stderr=subprocess.DEVNULL)
    try:
        with fakellm(None, 0) as url, Proxy(settings.neo4j.bolt_port) as proxy:
            clean = baseline(settings, proxy, url, work / "corpus", work)
            result["clean"] = {"articles": n,
                               "ingest": {k: v for k, v in clean["ingest"].items()
                                          if k != "snapshot"},
                               "counts": {k: len(v)
                                          for k, v in clean["ingest"]["snapshot"].items()}}
            for name in names:
                result[name] = run(name, settings, proxy, url, f"http://127.0.0.1:{slow_port}",
                                   work / "corpus", work, clean)
                print(name, json.dumps(result[name]), flush=True)
    finally:
        slow.terminate()
    result.pop("command", None)  # the runs that wrote the entries, one by one
    result.setdefault("commands", []).append(
        "python -m benchmarks.faults.neo4j_faults " + " ".join(sys.argv[1:]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
