"""Benchmark (not a test): what `serve` saves over one CLI process per question (issue 20).

The same question over the 122-report Christmas Carol GraphRAG index (imported), against
fakellm with ``--delay-ms 200`` (every LLM call takes 200 ms, like a fast remote model):
- a CLI `ask` process: seconds to its first byte of output and to its exit (it prints the
  whole answer at the end, so the two nearly meet);
- `POST /ask/stream` to one long-lived `serve`: seconds to the first event (a stage), to the
  first token of the answer and to the final JSON; and `POST /ask` to its answer.
Each --runs times (median, min, max); LLM cache off, so every run calls the LLM.

    .venv/bin/python benchmarks/serve_latency.py [--runs 5] [--method retag]
        [--fakellm-port 8864] [--serve-port 8865]

Starts (if needed) and EMPTIES the benchmark Neo4j (bolt 7689, or RETAG_BENCH_BOLT_PORT /
RETAG_BENCH_HTTP_PORT); writes bench-results/serve-latency.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2 as httpx
from cli_latency import INDEX, cli_cmd, run_env
from common import RESULTS, SHARED, bench_settings, machine, wipe

from neo4j_retag.db import Graph

QUESTION = "What are the main themes of this story?"


def stats(xs: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3),
            "max": round(max(xs), 3), "runs": len(xs)}


@contextmanager
def process(args: list[str], env: dict[str, str] | None = None) -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(30)


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


def cli_run(env: dict[str, str], method: str) -> tuple[float, float]:
    """(seconds to the first byte of stdout, seconds to exit) of one `ask` process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*cli_cmd(), "ask", QUESTION, "--method", method], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.read(1)
    first = time.perf_counter() - t0
    proc.communicate()
    if proc.returncode:
        raise SystemExit(f"ask failed: {proc.stderr}")
    return first, time.perf_counter() - t0


def stream_run(base: str, method: str) -> dict[str, float]:
    """Seconds to the first event, the first token and the final answer of /ask/stream."""
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    with httpx.stream("POST", f"{base}/ask/stream", json={"question": QUESTION,
                      "method": method}, timeout=300) as r:
        kind = ""
        for line in r.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
                now = time.perf_counter() - t0
                out.setdefault("first_event", now)
                if kind == "token":
                    out.setdefault("first_token", now)
            elif line.startswith("data:") and kind in ("answer", "error"):
                if kind == "error":
                    raise SystemExit(f"stream error: {line}")
                out["answer"] = time.perf_counter() - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--method", default="retag")
    ap.add_argument("--delay-ms", type=int, default=200)
    ap.add_argument("--fakellm-port", type=int, default=8864)
    ap.add_argument("--serve-port", type=int, default=8865)
    args = ap.parse_args()
    fake = [sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
            str(args.fakellm_port), "--quiet", "--delay-ms", str(args.delay_ms)]
    with process(fake):
        url = f"http://127.0.0.1:{args.fakellm_port}"
        wait_for(f"{url}/health")
        settings = bench_settings(f"{url}/v1")
        env = run_env(settings)
        with Graph(settings) as graph:
            wipe(graph)
        imported = subprocess.run([*cli_cmd(), "import", "graphrag", str(INDEX), "--json"],
                                  env=env, capture_output=True, text=True)
        if imported.returncode:
            raise SystemExit(f"import failed: {imported.stderr}")
        cli = [cli_run(env, args.method) for _ in range(args.runs)]
        base = f"http://127.0.0.1:{args.serve_port}"
        with process([*cli_cmd(), "serve", "--port", str(args.serve_port)], env) as srv:
            wait_for(f"{base}/health")
            stream_run(base, args.method)  # warm-up: first query plans, connection pool
            streams = [stream_run(base, args.method) for _ in range(args.runs)]
            asks = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                r = httpx.post(f"{base}/ask", json={"question": QUESTION,
                                                     "method": args.method}, timeout=300)
                r.raise_for_status()
                asks.append(time.perf_counter() - t0)
            llm_calls = r.json()["trace"]["llm"]["calls"]
            srv.terminate()
    out = {"question": QUESTION, "method": args.method, "index": str(INDEX),
           "fakellm_delay_ms": args.delay_ms, "llm_calls_per_answer": llm_calls,
           "cli_ask_process": {"first_output_s": stats([c[0] for c in cli]),
                               "exit_s": stats([c[1] for c in cli])},
           "serve_ask_stream": {k: stats([s[k] for s in streams])
                                for k in ("first_event", "first_token", "answer")},
           "serve_ask": {"answer_s": stats(asks)}, "machine": machine()}
    print(json.dumps(out, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "serve-latency.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
