"""The reduce step behind a small window (issue 46 item 5): global search's map and reduce
against fakellm behind a proxy that refuses any prompt over ``--window`` tokens with
llama.cpp's own 400 (``exceeds the available context size ... n_ctx``), the budgets left at
their remote defaults (8,000 tokens) as for a llama.cpp server named by OPENAI_BASE_URL.

The index is built against fakellm directly (no window); then each question is asked with
`ask --json` in a CLI process, once by this checkout's code and once by another checkout's
(``--before``, e.g. /work/main: the code before the reduce was budgeted), each with a fresh
capabilities file (nothing learnt). Per answer: exit code, failed items, map / reduce /
reduce_partial calls and prompt tokens, the refusals and the largest prompt the window took.

    python -m benchmarks.faults.reduce_window [--window 2048] [--docs 40] [--max-tokens 300]
        [--reuse] [--before /work/main]
Writes bench-results/reduce-window-WINDOW.json (-WINDOW-maxN.json for --max-tokens N other
than 300). Uses the benchmark Neo4j (RETAG_BENCH_BOLT_PORT).
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
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, ROOT, SHARED, bench_settings, fakellm, machine, wipe
from neo4j_retag.db import Graph
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import run_with_llm
from neo4j_retag.llm.transport import STAGE_HEADER
from neo4j_retag.ops.stats import collect
from neo4j_retag.tokens import count

LLAMA = ("the request exceeds the available context size, try increasing it "
         "(n_prompt_tokens: {n}, n_ctx: {ctx})")
QUESTIONS = ["What are the main themes of these news stories?",
             "Which organisations and people appear most, and why?"]


def window_proxy(target: str, window: int, log: list[dict[str, Any]]) -> ThreadingHTTPServer:
    """An OpenAI-compatible proxy to ``target`` refusing prompts over ``window`` tokens."""

    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def _reply(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            try:  # a 404 (fakellm has no /props) passed on as one, not a dropped connection
                with urllib.request.urlopen(target.removesuffix("/v1") + self.path) as r:
                    self._reply(r.status, r.read())
            except urllib.error.HTTPError as err:
                self._reply(err.code, err.read())

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            body = json.loads(raw)
            stage = self.headers.get(STAGE_HEADER, "")
            n = count("\n".join(str(m.get("content", "")) for m in body.get("messages", [])))
            log.append({"stage": stage, "tokens": n, "refused": n > window})
            if n > window:
                self._reply(400, json.dumps({"error": {
                    "code": 400, "message": LLAMA.format(n=n, ctx=window),
                    "type": "exceed_context_size_error"}}).encode())
                return
            req = urllib.request.Request(target.removesuffix("/v1") + self.path, data=raw,
                                         headers={"Content-Type": "application/json",
                                                  STAGE_HEADER: stage})
            with urllib.request.urlopen(req) as r:
                self._reply(r.status, r.read())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def ask(code: Path, question: str, env: dict[str, str], log: list[dict[str, Any]]
        ) -> dict[str, Any]:
    """One `ask --json` by the checkout at ``code``; what it cost and what the window saw."""
    start = len(log)
    with tempfile.TemporaryDirectory() as cache:  # nothing learnt, nothing cached
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "neo4j_retag", "ask", question, "--method", "global",
             "--level", "0", "--json"], capture_output=True, text=True, cwd=code,
            env={**env, "PYTHONPATH": str(code), "LLM_CACHE_DIR": cache}, timeout=600)
        seconds = time.perf_counter() - t0
    try:
        data = json.loads(done.stdout)
    except ValueError:
        data = {}
    trace = data.get("trace") or {}
    seen = log[start:]
    stages = {k: {"calls": v["calls"], "prompt_tokens": v["prompt_tokens"]}
              for k, v in (trace.get("llm_stages") or {}).items()}
    return {"exit_code": done.returncode, "seconds": round(seconds, 1),
            "stdout_json": bool(data), "stderr": done.stderr.strip().splitlines()[-1:],
            "failures": [f"{f['item']} ({f['reason']})" for f in trace.get("failures", [])],
            "points_kept": trace.get("points_kept"),
            "points_in_reduce": trace.get("points_in_reduce"),
            "map_batches": trace.get("map_batches"), "stages": stages,
            "refused": sum(e["refused"] for e in seen),
            "largest_prompt_taken": max((e["tokens"] for e in seen if not e["refused"]),
                                        default=0),
            "notes": [n for n in trace.get("notes", []) if "reduce" in n or "cut" in n]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=int, default=2048)
    ap.add_argument("--docs", type=int, default=40)
    ap.add_argument("--max-tokens", type=int, default=300, help="LLM_MAX_TOKENS")
    ap.add_argument("--reuse", action="store_true", help="keep the index a run built")
    ap.add_argument("--before", type=Path, default=None,
                    help="another checkout to compare (its code runs the same questions)")
    args = ap.parse_args()
    log: list[dict[str, Any]] = []
    with fakellm() as url:
        settings = bench_settings(url, embeddings=False)
        docs = sorted((SHARED / "corpora" / "bbc-news").rglob("*.txt"))[::10][:args.docs]
        with tempfile.TemporaryDirectory() as folder, Graph(settings) as graph:
            if not (args.reuse and collect(graph)["text_units"]):
                for d in docs:
                    (Path(folder) / d.name).write_text(d.read_text(errors="replace"))
                wipe(graph)
                graph.ensure_schema()
                run_with_llm(settings, lambda llm: run_ingest(graph, llm, settings,
                                                              [Path(folder)], topics=False))
        proxy = window_proxy(url, args.window, log)
        env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{proxy.server_port}/v1",
               "OPENAI_MODEL": "bench", "EMBEDDINGS": "false", "LLM_ANSWER_CHECK": "false",
               "NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
               "NEO4J_HTTP_PORT": str(settings.neo4j.http_port),
               "NEO4J_DATA": str(settings.neo4j_data_dir),
               "LLM_MAX_TOKENS": str(args.max_tokens)}
        runs: dict[str, list[dict[str, Any]]] = {"after": []}
        if args.before:
            runs["before"] = []
        for q in QUESTIONS:
            runs["after"].append({"question": q, **ask(ROOT, q, env, log)})
            if args.before:
                runs["before"].append({"question": q, **ask(args.before, q, env, log)})
        proxy.shutdown()
    out = {"window": args.window, "docs": len(docs), "budgets": "MAP/REDUCE_CONTEXT_TOKENS "
           f"8000 (remote defaults), LLM_MAX_TOKENS {args.max_tokens}", "runs": runs,
           "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    # another completion cap than the default 300 is another figure: its own file
    label = "" if args.max_tokens == 300 else f"-max{args.max_tokens}"
    path = RESULTS / f"reduce-window-{args.window}{label}.json"
    path.write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))
    print(f"written {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
