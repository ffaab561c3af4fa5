"""Benchmark (not a test): tokens/s of the embedded model per local server variant, on the real
extraction prompt, grammar-constrained and prompt-only - the successor of extraction_json.py for
speed (same calls, same JSON checks).

    .venv/bin/python -m benchmarks.speed.llm_speed --variant py:python \\
        --variant cpp:.venv/bin/llama-server [--variant cpp1:.venv/bin/llama-server:1] \\
        [--rounds 2] [--calls 4] [--modes json_object,off] [--port 8093] [--label NAME]

A variant is ``NAME:SERVER[:THREADS]``: SERVER is ``python`` (llama-cpp-python's server) or a
llama-server binary (``LLM_SERVER``), THREADS the server's threads (default LLM_THREADS, 2).
Each round starts every variant in turn on ``--port`` with a NEO4J_RETAG_HOME of its own
(never the shared server on 8088), sends the calls (no cache, no retry, 512 completion tokens
at most), stops it, and reads its log: rounds interleave the variants (A, B, A, B) so that a
machine shared with other work loads them alike; the report gives medians over all calls.

Per variant and mode: ``e2e_tokens_per_s`` (completion tokens / wall seconds of the call,
prompt processing and HTTP included), ``decode_tokens_per_s`` and ``prompt_tokens_per_s``
(llama.cpp's own "eval time" / "prompt eval time" lines of the server log), ``cpu_ms_per_token``
(the server process's CPU time per completion token, prompt included: what other load on a
shared machine disturbs least), seconds per call, strict JSON and valid extractions.
Writes bench-results/llm_speed[_<label>].json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS
from benchmarks.speed.extraction_json import PASSAGES, one_call
from neo4j_retag.config import Settings
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.services import llm_local

# llama-cpp-python prints "llama_perf_context_print:        eval time = 4000.00 ms / 100 runs",
# llama-server "       eval time =    4000.00 ms /   100 tokens"
EVAL = re.compile(r"(prompt )?eval time =\s+([\d.]+) ms /\s+(\d+) (?:runs|tokens)")


def log_rates(text: str) -> dict[str, list[float]]:
    """tokens/s of every prompt evaluation and every decode in a server log excerpt."""
    out: dict[str, list[float]] = {"prompt": [], "decode": []}
    for m in EVAL.finditer(text):
        ms, n = float(m.group(2)), int(m.group(3))
        if ms > 0 and n > 1:
            out["prompt" if m.group(1) else "decode"].append(n / ms * 1000)
    return out


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc), 0 if unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def variant_settings(server: str, threads: int | None, port: int, home: Path) -> Settings:
    extra = {"llm_threads": threads} if threads else {}
    return Settings(openai_base_url=None, neo4j_retag_home=home, llm_port=port,
                    llm_server=server, **extra)


async def calls(base: Settings, mode: str, n: int) -> list[dict[str, Any]]:
    # the local budgets (schema caps) apply: the endpoint is the local server
    s = base.model_copy(update={"llm_json_mode": mode, "llm_cache": False, "llm_max_retries": 0,
                                "llm_max_tokens": 512, "llm_concurrency": 1})
    async with LLM(s, Usage()) as llm:
        return [await one_call(llm, s, mode, PASSAGES[i % len(PASSAGES)]) for i in range(n)]


def run_variant(name: str, server: str, threads: int | None, args: argparse.Namespace,
                home: Path) -> dict[str, Any]:
    s = variant_settings(server, threads, args.port, home)
    log = llm_local.log_file(s)
    offset = log.stat().st_size if log.exists() else 0
    t0 = time.perf_counter()
    llm_local.start(s, timeout=300)
    started = time.perf_counter() - t0
    pid = llm_local.status(s)["pid"]
    rows, cpu = {}, {}
    try:
        for mode in args.modes.split(","):
            before = cpu_seconds(pid)
            rows[mode] = asyncio.run(calls(s, mode, args.calls))
            cpu[mode] = round(cpu_seconds(pid) - before, 2)
    finally:
        llm_local.stop(s)
    text = log.read_bytes()[offset:].decode("utf-8", "replace")
    return {"variant": name, "server": server, "threads": threads or s.services.llm_threads,
            "start_seconds": round(started, 1), "calls": rows, "cpu_seconds": cpu,
            "log_rates": log_rates(text)}


def med(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 1) if xs else None


def summarize(runs: list[dict[str, Any]], modes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in dict.fromkeys(r["variant"] for r in runs):
        mine = [r for r in runs if r["variant"] == name]
        v: dict[str, Any] = {"server": mine[0]["server"], "threads": mine[0]["threads"],
                             "start_seconds": med([r["start_seconds"] for r in mine]),
                             "decode_tokens_per_s": med([x for r in mine
                                                         for x in r["log_rates"]["decode"]]),
                             "prompt_tokens_per_s": med([x for r in mine
                                                         for x in r["log_rates"]["prompt"]])}
        for mode in modes:
            rows = [c for r in mine for c in r["calls"][mode]]
            ok = [c for c in rows if "error" not in c]
            v[mode] = {
                "calls": len(rows), "errors": len(rows) - len(ok),
                "seconds_median": med([c["seconds"] for c in ok]),
                "completion_tokens_median": med([c["completion_tokens"] for c in ok]),
                "e2e_tokens_per_s": med([c["completion_tokens"] / c["seconds"] for c in ok
                                         if c["seconds"] > 0]),
                # CPU time of the server per completion token: robust to other load (with
                # 1 thread; with 2, spinning while the other thread waits is counted too)
                "cpu_ms_per_token": round(1000 * sum(r["cpu_seconds"][mode] for r in mine)
                                          / max(1, sum(c["completion_tokens"] for c in ok)), 1),
                "strict_json": f"{sum(c['strict_json'] for c in rows)}/{len(rows)}",
                "valid": f"{sum(c['valid'] for c in rows)}/{len(rows)}",
                "entities_mean": round(statistics.mean([c["entities"] for c in rows]), 1)
                if rows else 0}
        out[name] = v
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", action="append", required=True,
                    help="NAME:SERVER[:THREADS], SERVER = python or a llama-server binary")
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds of all variants")
    ap.add_argument("--calls", type=int, default=4, help="extraction calls per mode and round")
    ap.add_argument("--modes", default="json_object,off")
    ap.add_argument("--port", type=int, default=8093, help="never the shared 8088")
    ap.add_argument("--label", default="", help="names the result file")
    args = ap.parse_args()
    if args.port == 8088:
        ap.error("8088 is the shared server's port")
    variants = []
    for spec in args.variant:
        name, server, *rest = spec.split(":")
        variants.append((name, server, int(rest[0]) if rest else None))
    runs = []
    with tempfile.TemporaryDirectory(prefix="llm-speed-") as tmp:
        for rnd in range(args.rounds):
            for name, server, threads in variants:
                r = run_variant(name, server, threads, args, Path(tmp) / name)
                r["round"] = rnd
                runs.append(r)
                print(rnd, name, {m: [(c["completion_tokens"], c["seconds"]) for c in cs]
                                  for m, cs in r["calls"].items()},
                      {k: [round(x) for x in v] for k, v in r["log_rates"].items()}, flush=True)
    modes = args.modes.split(",")
    result = {"label": args.label, "rounds": args.rounds, "calls": args.calls,
              "cores": os.cpu_count(), "loadavg_end": os.getloadavg(),
              "summary": summarize(runs, modes), "runs": runs}
    print(json.dumps(result["summary"], indent=2))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / (f"llm_speed_{args.label}.json" if args.label else "llm_speed.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
