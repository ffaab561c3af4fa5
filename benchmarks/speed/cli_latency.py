"""Benchmark (not a test): how fast the command line answers (issue 10.5).

Wall time from the shell of `neo4j-retag --help` and of `neo4j-retag ask` (global and retag)
with an instant LLM (../shared/tools/fakellm) over the real 122-report GraphRAG index of
../shared/indexes/christmas-carol-graphrag, imported with `neo4j-retag import graphrag`.
Targets: --help <= 0.3 s, ask <= 1.0 s. Each command runs --runs times (median, min, max);
then `python -X importtime` of the same commands lists the modules that cost the most import
time, so what is left is visible.

    .venv/bin/python -m benchmarks.speed.cli_latency [--runs 5] [--top 15]

Starts (if needed) and EMPTIES the benchmark Neo4j (bolt 7689, or RETAG_BENCH_BOLT_PORT /
RETAG_BENCH_HTTP_PORT); writes bench-results/cli_latency.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import RESULTS, ROOT, SHARED, bench_settings, fakellm, wipe
from neo4j_retag.db import Graph

INDEX = SHARED / "indexes" / "christmas-carol-graphrag"
QUESTION = "What are the main themes of this story?"


def cli_cmd() -> list[str]:
    """The console script beside this Python (what a user runs), else `python -m`."""
    script = Path(sys.executable).parent / "neo4j-retag"
    return [str(script)] if script.exists() else [sys.executable, "-m", "neo4j_retag.cli"]


def run_env(settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "OPENAI_"))}
    return {**env, "PYTHONPATH": str(ROOT), "NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
            "NEO4J_HTTP_PORT": str(settings.neo4j.http_port),
            "NEO4J_DATA": str(settings.neo4j_data_dir),
            "OPENAI_BASE_URL": settings.llm.endpoint, "OPENAI_MODEL": "bench",
            "LLM_CACHE": "false", "LLM_CONCURRENCY": "16"}


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_runs(args: list[str], env: dict[str, str], runs: int) -> dict:
    """Wall seconds (what the user waits) and CPU seconds of the process (less sensitive to
    other load on a shared machine) per run: median, min, max."""
    seconds, cpu = [], []
    for _ in range(runs):
        c0, t0 = _child_cpu(), time.perf_counter()
        out = subprocess.run(args, env=env, capture_output=True, text=True)
        seconds.append(time.perf_counter() - t0)
        cpu.append(_child_cpu() - c0)
        if out.returncode:
            raise SystemExit(f"{' '.join(args[-4:])} failed ({out.returncode}): {out.stderr}")
    return {"median_s": round(statistics.median(seconds), 3), "min_s": round(min(seconds), 3),
            "max_s": round(max(seconds), 3), "cpu_median_s": round(statistics.median(cpu), 3),
            "runs": runs}


def import_times(args: list[str], env: dict[str, str], top: int) -> list[dict]:
    """`python -X importtime`: the top-level packages by cumulative import time."""
    cmd = [sys.executable, "-X", "importtime", "-m", "neo4j_retag.cli", *args]
    err = subprocess.run(cmd, env=env, capture_output=True, text=True).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (p.strip() for p in line.split(":", 1)[1].split("|"))
        if cumulative.isdigit() and "." not in name:  # top-level packages only
            rows.append({"module": name, "ms": round(int(cumulative) / 1000, 1)})
    rows.sort(key=lambda r: -r["ms"])
    return rows[:top]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    with fakellm() as url:
        settings = bench_settings(url)
        env = run_env(settings)
        with Graph(settings) as graph:
            wipe(graph)
        cli = cli_cmd()
        imported = subprocess.run([*cli, "import", "graphrag", str(INDEX), "--json"], env=env,
                                  capture_output=True, text=True)
        if imported.returncode:
            raise SystemExit(f"import failed: {imported.stderr}")
        counts = json.loads(imported.stdout)["counts"]
        commands = {
            "--help": ["--help"],
            "ask --method global": ["ask", QUESTION, "--method", "global"],
            "ask (retag)": ["ask", QUESTION],
        }
        out = {"index": str(INDEX), "imported": counts, "load_average": os.getloadavg(),
               "cpus": os.cpu_count(), "commands": {}, "targets_s": {"--help": 0.3, "ask": 1.0}}
        for name, cmd_args in commands.items():
            subprocess.run([*cli, *cmd_args], env=env, capture_output=True)  # warm the OS cache
            out["commands"][name] = {
                **timed_runs([*cli, *cmd_args], env, args.runs),
                "importtime_top": import_times(cmd_args, env, args.top)}
        out["load_average_after"] = os.getloadavg()
    print(json.dumps(out, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "cli_latency.json").write_text(json.dumps(out, indent=2))
    width = shutil.get_terminal_size().columns
    for name, r in out["commands"].items():
        print(f"{name:22} median {r['median_s']:.3f} s wall, {r['cpu_median_s']:.3f} s CPU"
              [:width], file=sys.stderr)


if __name__ == "__main__":
    main()
