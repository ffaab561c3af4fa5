"""Benchmark (issue 9's acceptance figure): a faulted `ingest` converges to the clean graph.

20 BBC articles (4 per category), `neo4j-retag ingest` run as a real CLI process against
fakellm: once clean, then with injected faults (default mix below, ~0.38 of all calls) rerun
until it exits 0, then once more with faults and the first process SIGKILLed at a random
moment. Each final graph (documents, text units, entities, relationships, claims,
communities and reports per level and scope, topics) must equal the clean one exactly; the
first faulted run's summary must account for every fault fakellm injected, by reason.
GLEAN=0: fakellm answers a gleaning prompt in GraphRAG's tuple format whatever JSON is asked
for, so every gleaning round would be an (uninjected) unparseable reply.

    .venv/bin/python -m benchmarks.faults.faults [--articles 20] [--faults SPEC] [--seed 1]
                                          [--fakellm-port PORT]

Uses the benchmark Neo4j (RETAG_BENCH_BOLT_PORT / RETAG_BENCH_HTTP_PORT, default 7689/7476),
which it EMPTIES. Writes bench-results/faults.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, bench_settings, free_port, wipe
from neo4j_retag.db import Graph

ROOT = Path(__file__).resolve().parents[2]

SHARED = next(p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared",
                          Path("/work/shared")) if (p / "corpora").exists())
FAKELLM = SHARED / "tools" / "fakellm" / "fakellm.py"
FAULTS = ("garbage=0.05,prose=0.05,truncate=0.05,empty=0.03,think=0.03,nousage=0.05,"
          "http500=0.05,http429=0.05,timeout=0.02")
TIMEOUT_S = 3.0   # fakellm's timeout fault sleeps this long ...
LLM_TIMEOUT = 1.5  # ... and the client gives up before, so the fault is seen as a timeout
# fakellm's fault name -> the names our summary counts it under (JSON replies / text replies)
ACCOUNTS = {"garbage": ("unparseable", "refused"), "prose": ("prose", "chatter"),
            "truncate": ("truncated", "truncated_ok"), "empty": ("empty",),
            "think": ("think",), "nousage": ("nousage",), "http500": ("http5xx",),
            "http429": ("http429",), "timeout": ("timeout",)}

SNAPSHOT = {  # every query returns rows that are compared as sorted JSON
    "documents": "MATCH (d:Document) RETURN d.id AS id, d.title AS title",
    "text_units": "MATCH (c:Chunk) RETURN c.id AS id, c.extracted AS extracted, "
                  "c.error AS error, c.dropped AS dropped",
    "entities": "MATCH (e:Entity) RETURN e.key AS key, e.name AS name, e.type AS type, "
                "e.description AS description, e.dirty AS dirty",
    "relationships": "MATCH (a:Entity)-[r:RELATED]->(b:Entity) RETURN a.key AS a, b.key AS b, "
                     "r.description AS description, r.strength AS strength",
    "claims": "MATCH (c:Claim) RETURN c.id AS id, properties(c) AS props",
    # not the id: ids are never handed to another membership (issue 18), so a run that rebuilt
    # the hierarchy in between gives the same communities new ids
    "communities": "MATCH (c:Community) RETURN c.scope AS scope, c.level AS level, "
                   "[(e:Entity)-[:IN_COMMUNITY]->(c) | e.key] AS members, "
                   "c.report_status AS status, c.full_content AS report",
    "topics": "MATCH (t:Topic) RETURN t.name AS name, t.description AS description, "
              "t.label AS label",
    "meta": "MATCH (m:Meta) RETURN m {.*, next_community_id: null} AS props",  # ids: as above
    "memberships": "MATCH (c:Community) RETURN c.scope AS scope, c.level AS level, "
                   "[(e:Entity)-[:IN_COMMUNITY]->(c) | e.key] AS members, "
                   "c.report_status AS status",
}


TEXT_FROM_IDS = ("communities", "topics", "meta")  # texts fakellm writes from community ids


def _canon(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in rows:
        if "members" in r:
            r["members"] = sorted(r["members"])
        out.append(json.dumps(r, sort_keys=True, default=str))
    return sorted(out)


def snapshot(settings: Any) -> dict[str, list[str]]:
    with Graph(settings) as graph:
        return {k: _canon([dict(r) for r in graph.driver.execute_query(q).records])
                for k, q in SNAPSHOT.items()}


def compare(a: dict[str, list[str]], b: dict[str, list[str]]) -> dict[str, Any]:
    """Per part: counts and whether the rows are identical (with a few differing rows)."""
    out = {}
    for k in a:
        only_a, only_b = sorted(set(a[k]) - set(b[k])), sorted(set(b[k]) - set(a[k]))
        out[k] = {"clean": len(a[k]), "faulted": len(b[k]), "equal": a[k] == b[k],
                  "differing": (only_a[:2], only_b[:2]) if a[k] != b[k] else None}
    return out


def per_level(snap: dict[str, list[str]]) -> dict[str, int]:
    c = Counter()
    for row in snap["communities"]:
        r = json.loads(row)
        c[f"{r['scope']} L{r['level']} {r['status']}"] += 1
    return dict(sorted(c.items()))


FAKELLM_PORT: list[int | None] = [None]  # --fakellm-port: one fixed port, else a free one


@contextmanager
def fakellm(faults: str | None, seed: int):
    port = FAKELLM_PORT[0] or free_port()
    cmd = [sys.executable, str(FAKELLM), str(port), "--quiet"]
    if faults:
        cmd += ["--faults", faults, "--fault-seed", str(seed), "--timeout-s", str(TIMEOUT_S)]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/health", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait()


def fake_stats(url: str, reset: bool = False) -> dict[str, Any]:
    with urllib.request.urlopen(url + "/stats" + ("?reset=1" if reset else "")) as r:
        return json.loads(r.read())


def calls(stats: dict[str, Any]) -> int:
    return sum(v for v in stats.get("calls", {}).values())


def cli_env(settings: Any, url: str, cache: Path, retries: int = 3) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"OPENAI_BASE_URL": url + "/v1", "OPENAI_MODEL": "bench",
                "LLM_CACHE_DIR": str(cache), "LLM_TIMEOUT": str(LLM_TIMEOUT),
                "LLM_CONCURRENCY": "8", "GLEAN": "0", "LLM_MAX_RETRIES": str(retries),
                # fakellm's canned answers are about nothing: the answer check would refuse them
                "LLM_ANSWER_CHECK": "false",
                "NEO4J_BOLT_PORT": str(settings.neo4j.bolt_port),
                "NEO4J_HTTP_PORT": str(settings.neo4j.http_port),
                "NEO4J_DATA": str(settings.neo4j_data_dir), "PYTHONPATH": str(ROOT)})
    if settings.neo4j.uri:
        env |= {"NEO4J_URI": settings.neo4j.uri, "NEO4J_PASSWORD": settings.neo4j_auth()[1]}
    return env


def ingest(env: dict[str, str], corpus: Path, kill_after: float | None = None
           ) -> tuple[int, dict[str, Any] | None, float]:
    """One `neo4j-retag ingest --json` process: (exit code, summary, seconds)."""
    cmd = [sys.executable, "-m", "neo4j_retag.cli", "ingest", str(corpus), "--json"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate()
    seconds = time.perf_counter() - t0
    try:
        summary = json.loads(out) if out.strip() else None
    except ValueError:
        summary = None
    if proc.returncode not in (0, 3, -signal.SIGKILL):
        sys.exit(f"ingest failed (rc {proc.returncode}):\n{err[-3000:]}")
    return proc.returncode, summary, seconds


def until_clean(env: dict[str, str], corpus: Path, url: str, max_runs: int,
                kill_after: float | None = None) -> dict[str, Any]:
    """Ingest until exit 0 (the first run possibly killed); runs, exit codes, LLM calls."""
    runs: list[dict[str, Any]] = []
    first_summary = None
    for i in range(max_runs):
        rc, summary, seconds = ingest(env, corpus, kill_after if i == 0 else None)
        runs.append({"rc": rc, "seconds": round(seconds, 1),
                     "failed_items": summary["failed_items"] if summary else None})
        if i == 0:
            first_summary = summary
            first_stats = fake_stats(url)
        if rc == 0:
            break
    return {"runs": runs, "reruns": len(runs) - 1, "converged": runs[-1]["rc"] == 0,
            "first_summary": first_summary, "first_stats": first_stats,
            "llm_calls": calls(fake_stats(url))}


def accounting(summary: dict[str, Any], stats: dict[str, Any],
               baseline: dict[str, int]) -> dict[str, Any]:
    """Injected faults (fakellm /stats) against what the first run's summary counted, less
    what the clean run counted already (fakellm's own answers our checks refuse)."""
    seen = summary["llm_faults"] if summary else {}
    out = {}
    for name, n in sorted(stats.get("faults", {}).items()):
        counted = sum(seen.get(k, 0) - baseline.get(k, 0) for k in ACCOUNTS[name])
        out[name] = {"injected": n, "counted": counted, "as": list(ACCOUNTS[name])}
    return {"by_fault": out, "all_accounted": all(v["injected"] == v["counted"]
                                                  for v in out.values()),
            "summary_faults": seen}


def copy_articles(dest: Path, n: int) -> int:
    """The first n/5 articles of each BBC category (sorted names) into ``dest``."""
    src = SHARED / "corpora" / "bbc-news"
    cats = sorted(d for d in src.iterdir() if d.is_dir())
    per = -(-n // len(cats))
    files = [f for d in cats for f in sorted(d.glob("*.txt"))[:per]][:n]
    for f in files:
        (dest / f.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(f, dest / f.parent.name / f.name)
    return len(files)


# (name, LLM_MAX_RETRIES, SIGKILL the first run): the default retries; none, so that every
# harmful fault fails its item and only reruns recover; the default with a killed process
SCENARIOS = [("faulted", 3, False), ("faulted_no_retries", 0, False),
             ("faulted_sigkill", 3, True)]


def run_benchmark(settings: Any, corpus: Path, work: Path, faults: str, seed: int,
                  scenarios: list[tuple[str, int, bool]], max_runs: int) -> dict[str, Any]:
    """The clean run, then each scenario on an emptied graph; everything measured."""
    rng = random.Random(seed)
    result: dict[str, Any] = {"faults": faults, "fault_seed": seed, "timeout_s": TIMEOUT_S,
                              "llm_timeout": LLM_TIMEOUT}
    with Graph(settings) as graph:
        wipe(graph)
    with fakellm(None, 0) as url:
        rc, summary, seconds = ingest(cli_env(settings, url, work / "cache-clean"), corpus)
        clean_calls = calls(fake_stats(url))
    assert rc == 0 and summary, f"the clean run exited {rc}"
    clean = snapshot(settings)
    result["clean"] = {"rc": rc, "seconds": round(seconds, 1), "llm_calls": clean_calls,
                       "llm_faults": summary["llm_faults"],
                       "counts": {k: len(v) for k, v in clean.items()},
                       "communities": per_level(clean)}
    print("clean:", result["clean"], flush=True)
    for name, retries, kill in scenarios:
        with Graph(settings) as graph:
            wipe(graph)
        with fakellm(faults, seed + len(name)) as url:
            kill_after = rng.uniform(2.0, max(3.0, 0.8 * seconds)) if kill else None
            run = until_clean(cli_env(settings, url, work / f"cache-{name}", retries), corpus,
                              url, max_runs, kill_after)
        final = snapshot(settings)
        diff = compare(clean, final)
        entry = {"llm_max_retries": retries,
                 "killed_after_s": round(kill_after, 1) if kill_after else None,
                 "runs": run["runs"], "reruns": run["reruns"],
                 "converged": run["converged"], "llm_calls": run["llm_calls"],
                 "extra_llm_calls": run["llm_calls"] - clean_calls,
                 "equal_to_clean": all(d["equal"] for d in diff.values()),
                 # the graph's structure alone: a rerun that rebuilt the hierarchy in between
                 # gives new community ids (never reused, issue 18), and fakellm echoes the ids
                 # of its prompt into reports and topics, so only their texts may differ then
                 "same_structure": all(d["equal"] for k, d in diff.items()
                                       if k not in TEXT_FROM_IDS),
                 "compare": diff, "communities": per_level(final)}
        if not kill:
            entry["accounting"] = accounting(run["first_summary"], run["first_stats"],
                                             result["clean"]["llm_faults"])
            first = run["first_summary"] or {}
            entry["first_run_failed"] = {
                "text_units": [f["reason"] for f in first.get("text_units_failed", [])],
                "summaries": len(first.get("summaries_failed", [])),
                "reports": first.get("reports"),
                "topics": [f["reason"] for f in first.get("topics_failed", [])],
                "dropped_records": first.get("dropped_records"),
                "outcomes": first.get("outcomes")}
        result[name] = entry
        print(name, {k: v for k, v in entry.items() if k != "compare"}, flush=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=20)
    ap.add_argument("--faults", default=FAULTS)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-runs", type=int, default=30)
    ap.add_argument("--out", type=Path, default=RESULTS / "faults.json")
    ap.add_argument("--fakellm-port", type=int, default=None,
                    help="fakellm's port (one instance at a time); default a free one")
    args = ap.parse_args()
    FAKELLM_PORT[0] = args.fakellm_port
    work = Path(tempfile.mkdtemp(prefix="retag-faults-"))
    try:
        n = copy_articles(work / "corpus", args.articles)
        settings = bench_settings("http://127.0.0.1:1/v1")
        result = {"articles": n, "command": "python -m benchmarks.faults.faults " +
                  " ".join(sys.argv[1:]),
                  **run_benchmark(settings, work / "corpus", work, args.faults, args.seed,
                                  SCENARIOS, args.max_runs)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=str))
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
