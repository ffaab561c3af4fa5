"""Benchmark (not a test): what `serve` saves over one CLI process per question (issue 20).

The same question over the 122-report Christmas Carol GraphRAG index (imported), against
fakellm with ``--delay-ms 200`` (every LLM call takes 200 ms, like a fast remote model):
- a CLI `ask` process: seconds to its first byte of output and to its exit (it prints the
  whole answer at the end, so the two nearly meet);
- `POST /ask/stream` to one long-lived `serve`: seconds to the first event (a stage), to the
  first token of the answer and to the final JSON; and `POST /ask` to its answer.
Each --runs times (median, min, max); LLM cache off, so every run calls the LLM.

Then `serve` under load (issue 33), against fakellm with ``--load-delay-ms 300`` and
LLM_CONCURRENCY ``--concurrency`` (8): GET /health every 50 ms, from a process of its own
(benchmarks/speed/health_probe.py), while 20 questions and an ingest job run (its p50/p99 latency),
and 50 concurrent questions (answers and LLM calls per second; the ceiling is
LLM_CONCURRENCY / 0.3 s calls per second). ``--code DIR`` runs the
server from another checkout (e.g. ``git archive <commit> | tar -x -C DIR``: "before").

    .venv/bin/python -m benchmarks.speed.serve_latency [--runs 5] [--method retag]
        [--fakellm-port 8864] [--serve-port 8865] [--load-only] [--code DIR --label before]

Starts (if needed) and EMPTIES the benchmark Neo4j (bolt 7689, or RETAG_BENCH_BOLT_PORT /
RETAG_BENCH_HTTP_PORT); writes bench-results/serve-latency.json (serve-load-LABEL.json for
the load part).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx

from benchmarks.common import RESULTS, SHARED, bench_settings, machine, wipe
from benchmarks.speed.cli_latency import INDEX, cli_cmd, run_env
from neo4j_retag.db import Graph

QUESTION = "What are the main themes of this story?"


def stats(xs: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3),
            "max": round(max(xs), 3), "runs": len(xs)}


@contextmanager
def process(args: list[str], env: dict[str, str] | None = None,
            log: Path | None = None, cwd: str | None = None) -> Iterator[subprocess.Popen]:
    # stderr to a file: a pipe nobody reads fills up and stalls the process writing to it
    with open(log or "/dev/null", "w") as err:
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd)
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


@contextmanager
def health_probe(base: str) -> Iterator[dict[str, Any]]:
    """GET /health every 50 ms from a process of its own (benchmarks/speed/health_probe.py) for the
    block's duration; the dict gets its ``times`` (s) and ``statuses`` at the end."""
    stop = Path(tempfile.mkdtemp(prefix="health-probe-")) / "stop"
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("health_probe.py")),
                             base, str(stop)], stdout=subprocess.PIPE, text=True)
    out: dict[str, Any] = {}
    try:
        yield out
    finally:
        stop.touch()
        text, _ = proc.communicate(120)
        out.update(json.loads(text))


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))] * 1000, 1)


async def load_run(base: str, method: str, asks: int = 50) -> dict[str, object]:
    """/health latency during 20 questions, then 20 questions + an ingest, then 50 questions
at once."""
    async with httpx.AsyncClient(base_url=base, timeout=600) as c:
        with health_probe(base) as probe:
            await asyncio.gather(*(c.post("/ask", json={
                "question": f"What are the main themes, warm {i}?", "method": method})
                for i in range(20)))
        asks_only = probe["times"]
        with health_probe(base) as probe:
            job = await c.post("/ingest", json={"paths": ["."], "topics": False})
            questions = await asyncio.gather(*(c.post("/ask", json={
                "question": f"What are the main themes, take {i}?", "method": method})
                for i in range(20)))
            job_id = job.json().get("id") if job.status_code == 202 else None
            job_state = "none"
            while job_id:
                job_state = (await c.get(f"/jobs/{job_id}")).json()["status"]
                if job_state != "running":
                    break
                await asyncio.sleep(0.2)
        times, states = probe["times"], probe["statuses"]
        t0 = time.perf_counter()
        rs = await asyncio.gather(*(c.post("/ask", json={
            "question": f"What are the main themes, burst {i}?", "method": method})
            for i in range(asks)))
        wall = time.perf_counter() - t0
    ok = [r for r in rs if r.status_code == 200]
    calls = sum(r.json()["trace"]["llm"]["calls"] for r in ok)
    return {"health_during_20_asks": {"samples": len(asks_only),
                                      "p50_ms": _pct(asks_only, 0.5),
                                      "p99_ms": _pct(asks_only, 0.99),
                                      "max_ms": round(max(asks_only) * 1000, 1)},
            "health_during_20_asks_and_ingest": {
                "samples": len(times), "p50_ms": _pct(times, 0.5), "p99_ms": _pct(times, 0.99),
                "max_ms": round(max(times) * 1000, 1), "statuses": states,
                "ingest_job": job.status_code, "ingest_status": job_state,
                "asks_ok": sum(r.status_code == 200 for r in questions),
                "asks_failed": [f"{r.status_code}: {r.text[:200]}" for r in questions
                                if r.status_code != 200]},
            f"burst_{asks}_asks": {"seconds": round(wall, 2), "answered": len(ok),
                                   "failed": [f"{r.status_code}: {r.text[:200]}" for r in rs
                                              if r.status_code != 200],
                                   "answers_per_s": round(len(ok) / wall, 2),
                                   "llm_calls": calls,
                                   "llm_calls_per_s": round(calls / wall, 2)}}


def load_phase(args: argparse.Namespace, settings, env: dict[str, str]) -> dict[str, object]:
    """`serve` (from --code, or this checkout) under load against a slower fakellm."""
    folder = Path(tempfile.mkdtemp(prefix="serve-load-"))
    for i in range(20):
        (folder / f"doc{i}.txt").write_text(
            f"Ledger {i}. Scrooge counted coins while Cratchit copied letters. " * 60)
    env = {**env, "LLM_CONCURRENCY": str(args.concurrency), "SERVE_INGEST_ROOT": str(folder),
           "SERVE_QUEUE_LIMIT": "64"}
    if args.code:
        env["PYTHONPATH"] = str(Path(args.code).resolve())
    fake = [sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
            str(args.fakellm_port + 2), "--quiet", "--delay-ms", str(args.load_delay_ms)]
    env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{args.fakellm_port + 2}/v1"
    base = f"http://127.0.0.1:{args.serve_port}"
    log = RESULTS / f"serve-load-{args.label}.log"
    RESULTS.mkdir(exist_ok=True)
    # run from --code's folder: `python -m` puts the working folder first on sys.path, ahead
    # of PYTHONPATH, so from here it would import this checkout whatever --code says
    cwd = str(Path(args.code).resolve()) if args.code else None
    with process(fake), process([sys.executable, "-m", "neo4j_retag.cli", "serve", "--port",
                                 str(args.serve_port), "--allow-writes"], env, log, cwd):
        wait_for(f"http://127.0.0.1:{args.fakellm_port + 2}/health")
        wait_for(f"{base}/health")
        out = asyncio.run(load_run(base, args.method))
    return {"command": " ".join(["python", *sys.argv]), "label": args.label,
            "code": args.code or "this checkout",
            "llm_concurrency": args.concurrency,
            "serve_processes": env.get("SERVE_PROCESSES", "default"),
            "fakellm_delay_ms": args.load_delay_ms,
            "llm_calls_per_s_ceiling": round(args.concurrency / (args.load_delay_ms / 1000), 1),
            "method": args.method, **out, "machine": machine()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--method", default="retag")
    ap.add_argument("--delay-ms", type=int, default=200)
    ap.add_argument("--fakellm-port", type=int, default=8864)
    ap.add_argument("--serve-port", type=int, default=8865)
    ap.add_argument("--load-only", action="store_true", help="only the load part")
    ap.add_argument("--load-delay-ms", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=8, help="LLM_CONCURRENCY under load")
    ap.add_argument("--code", help="run serve from this checkout (the 'before' figures)")
    ap.add_argument("--label", default="after")
    args = ap.parse_args()
    print("$", " ".join(["python", *sys.argv]), flush=True)  # what made these figures
    # fakellm's canned answers are about nothing: the answer check would ask each reduce
    # again (calls that measure the check, not the server); the CLI and serve runs inherit it
    os.environ["LLM_ANSWER_CHECK"] = "false"
    if args.load_only:
        load_only(args)
        return
    fake = [sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
            str(args.fakellm_port), "--quiet", "--delay-ms", str(args.delay_ms)]
    with process(fake):
        url = f"http://127.0.0.1:{args.fakellm_port}"
        wait_for(f"{url}/health")
        settings, env = imported_index(url)
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


def imported_index(url: str) -> tuple[Any, dict[str, str]]:
    """The bench Neo4j emptied and the GPT-4o Christmas Carol index imported into it, with
    the LLM at ``url``: (settings, the environment of a CLI run)."""
    settings = bench_settings(f"{url}/v1")
    env = run_env(settings)
    with Graph(settings) as graph:
        wipe(graph)
    imported = subprocess.run([*cli_cmd(), "import", "graphrag", str(INDEX), "--json"],
                              env=env, capture_output=True, text=True)
    if imported.returncode:
        raise SystemExit(f"import failed: {imported.stderr}")
    return settings, env


def load_only(args: argparse.Namespace) -> None:
    fake = [sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
            str(args.fakellm_port), "--quiet"]
    with process(fake):
        url = f"http://127.0.0.1:{args.fakellm_port}"
        wait_for(f"{url}/health")
        settings, env = imported_index(url)
    out = {"index": str(INDEX), **load_phase(args, settings, env)}
    print(json.dumps(out, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"serve-load-{args.label}.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
