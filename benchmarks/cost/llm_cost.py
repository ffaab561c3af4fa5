"""Benchmark (not a test): what a user pays in LLM calls and tokens (issue 18).

Our `ingest` (index + topics) on BBC articles against ../shared/tools/fakellm (instant,
deterministic; counts tokens as characters / 4 for everyone) with the LLM response cache on
(a cold cache: only repeats within the run are free) and off; then the one-document-added run:
N-1 articles, then the N-th, cache off (report calls, communities whose membership changed, ids
of the unchanged ones). When a graphrag 3.3 venv is present (GRAPHRAG_VENV, else
~/.cache/msgraphrag-venv), ../shared/tools/msgraphrag/run.sh indexes the same articles back to
back; else GraphRAG's figures measured for issue 18 on this machine are quoted (marked so).

    .venv/bin/python -m benchmarks.cost.llm_cost --articles 20 [--articles 200]
        [--runs on,off,added] [--assign-batch K] [--class small|capable]

``--class`` sets LLM_CLASS (fakellm's model name "bench" is a capable model's by default):
``small`` extracts by selection (names, types, sentence numbers) and assembles descriptions
and reports from the evidence. Each run says where its calls and prompt tokens went (``where``:
per stage, largest first, with its share).

Starts (if needed) and EMPTIES the benchmark Neo4j (RETAG_BENCH_BOLT_PORT, default 7689).
Writes bench-results/llm_cost-<N>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, SHARED, bench_settings, machine, wipe, with_llm
from neo4j_retag.db import Graph
from neo4j_retag.index import topic_assign
from neo4j_retag.index.estimate import estimate_ingest, record_estimate
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.index.topics import mining_level
from neo4j_retag.llm import Usage
from neo4j_retag.model import LLMCost
from neo4j_retag.ops.stats import collect, record_usage
from neo4j_retag.stages import Stage

# GraphRAG 3.3.0 measured on this machine (run.sh, 600/100, fakellm; BBC-200 run again for
# issue 61 gave the same figures), quoted when no graphrag venv is present or --graphrag quote
GRAPHRAG_QUOTED = {
    200: {"chat_calls": 1399, "report_calls": 388, "prompt_tokens": 2722368,
          "completion_tokens": 494491},
    20: {"chat_calls": 86, "report_calls": 12, "prompt_tokens": 170000,
         "completion_tokens": 40000},
}
# the stages an ingest counts under "topics" (reduce_partial too: mining's partial reduces)
TOPIC_STAGES = tuple(s for s in Stage if s.group == Stage.TOPICS)


def copy_articles(dest: Path, n: int, skip_last: bool = False) -> list[Path]:
    """The first n/5 articles of each BBC category (sorted names) into ``dest``; the n-th left
    out when ``skip_last``. Returns the files copied."""
    src = SHARED / "corpora" / "bbc-news"
    cats = sorted(d for d in src.iterdir() if d.is_dir())
    per = -(-n // len(cats))
    files = [f for d in cats for f in sorted(d.glob("*.txt"))[:per]][:n]
    if skip_last:
        files = files[:-1]
    for f in files:
        (dest / f.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(f, dest / f.parent.name / f.name)
    return files


@contextmanager
def fakellm(port: int) -> Iterator[str]:
    """fakellm on ``port``, waited for; yields its base URL."""
    proc = subprocess.Popen([sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
                             str(port), "--quiet"], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait()


def fake_stats(url: str, reset: bool = False) -> dict[str, Any]:
    base = url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{base}/stats{'?reset=1' if reset else ''}") as r:
        return json.load(r)


def where(stages: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """The chat calls and prompt tokens per stage, largest first, with their shares (what is
    left to save, and where)."""
    chat = {k: v for k, v in stages.items() if k != "embed"}
    calls = sum(v["calls"] for v in chat.values()) or 1
    tokens = sum(v["prompt_tokens"] for v in chat.values()) or 1
    return [{"stage": k, "calls": v["calls"], "call_share": round(v["calls"] / calls, 3),
             "prompt_tokens": v["prompt_tokens"],
             "prompt_share": round(v["prompt_tokens"] / tokens, 3)}
            for k, v in sorted(chat.items(), key=lambda kv: (-kv[1]["calls"],
                                                             -kv[1]["prompt_tokens"]))
            if v["calls"]]


def stage_table(usage: Usage) -> dict[str, dict[str, int]]:
    return {k: {"calls": s.calls, "prompt_tokens": s.prompt_tokens,
                "completion_tokens": s.completion_tokens, "cached": s.cached}
            for k, s in sorted(usage.stages.items())}


def memberships(graph: Graph) -> dict[tuple[str, int, str], int]:
    rows = graph.driver.execute_query(
        "MATCH (c:Community) RETURN c.scope AS scope, c.level AS level, "
        "c.membership AS membership, c.id AS id").records
    return {(r["scope"], r["level"], r["membership"]): r["id"] for r in rows}


def report_sources(graph: Graph) -> dict[str, int]:
    rows = graph.driver.execute_query(
        "MATCH (c:Community) RETURN c.scope = 'general' AS general, "
        "coalesce(c.report_source, 'none') AS source, c.reused_from IS NOT NULL AS reused, "
        "count(*) AS n").records
    out: dict[str, int] = {}
    for r in rows:
        how = "reused" if r["reused"] else r["source"]
        name = f"{'general' if r['general'] else 'topic'}_{how}"
        out[name] = out.get(name, 0) + r["n"]
    return dict(sorted(out.items()))


def one_ingest(settings, graph: Graph, corpus: Path, url: str) -> dict[str, Any]:
    usage = Usage()
    fake_stats(url, reset=True)
    estimate = estimate_ingest(settings, [corpus], graph)
    t0 = time.perf_counter()
    result = with_llm(settings, usage, lambda llm: run_ingest(graph, llm, settings, [corpus]))
    seconds = time.perf_counter() - t0
    record_usage(graph, usage)
    record_estimate(graph, estimate)
    fk = fake_stats(url)
    stages = stage_table(usage)
    total = usage.total
    # embedding requests are counted apart, as GraphRAG's figures count them (its
    # prompt_tokens_chat and chat_calls leave them out)
    emb = stages.get("embed", {"calls": 0, "prompt_tokens": 0})
    chat_prompt = total.prompt_tokens - emb["prompt_tokens"]
    topic_prompt = sum(stages.get(k, {}).get("prompt_tokens", 0) for k in TOPIC_STAGES)
    est_emb = estimate.stages.get("embed") or LLMCost()
    stats = collect(graph)
    sizes = graph.run("index/level_report_sizes")
    return {
        "seconds": round(seconds, 1), "failed_items": result.failed_items,
        "chat_calls": total.calls - emb["calls"],
        "prompt_tokens": chat_prompt,
        "completion_tokens": total.completion_tokens,
        "embedding_requests": emb["calls"], "embedding_tokens": emb["prompt_tokens"],
        "report_calls": stages.get("report", {}).get("calls", 0),
        "topic_prompt_tokens": topic_prompt,
        "topic_prompt_share": round(topic_prompt / max(chat_prompt, 1), 3),
        "topic_calls": sum(stages.get(k, {}).get("calls", 0) for k in TOPIC_STAGES),
        "topics_mined": result.topics.mined if result.topics else None,
        "topics_why": result.topics.why if result.topics else None,
        "topic_text_units_labelled": result.topics.text_units_labelled if result.topics else 0,
        "topics_kept": [t.name for t in result.topics.topics] if result.topics else [],
        # mined = kept + dropped (no text unit labelled with it: no subgraph)
        "topics_mined_count": (len(result.topics.topics) + len(result.topics.dropped_topics))
        if result.topics else 0,
        "mining_level": mining_level(graph),
        # general report text per level (characters; fakellm's tokens are characters / 4)
        "level_report_chars": {r["level"]: {"reports": r["reports"], "chars": r["chars"]}
                               for r in sizes},
        "stages": stages, "where": where(stages), "fakellm_calls_by_kind": fk.get("calls"),
        "reports": result.reports.model_dump(mode="json"), "report_sources": report_sources(graph),
        "estimate": {"calls": estimate.total.calls - est_emb.calls,
                     "prompt_tokens": estimate.total.prompt_tokens - est_emb.prompt_tokens,
                     "completion_tokens": estimate.total.completion_tokens,
                     "stages": estimate.as_dict()},
        "graph": {k: stats[k] for k in ("documents", "text_units", "entities", "relationships",
                                        "claims", "communities", "community_reports", "topics")},
        "levels": [(lv["level"], lv["communities"]) for lv in stats["levels"]],
    }


def run_ours(n: int, runs: list[str], url: str, work: Path,
             extra: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    corpus = work / f"bbc-{n}"
    copy_articles(corpus, n)
    for name in runs:
        if name == "added":
            continue
        settings = bench_settings(url, **extra).model_copy(update={
            "llm_cache": name == "on", "llm_cache_dir": work / f"cache-{n}-{name}"})
        with Graph(settings) as graph:
            wipe(graph)
            out[f"cache_{name}"] = one_ingest(settings, graph, corpus, url)
    if "added" in runs:
        settings = bench_settings(url, **extra)
        part = work / f"bbc-{n}-minus-1"
        copy_articles(part, n, skip_last=True)
        with Graph(settings) as graph:
            wipe(graph)
            first = one_ingest(settings, graph, part, url)
            before = memberships(graph)
            # the n-th article joins the folder: the same documents plus one
            added = next(p for p in corpus.rglob("*.txt")
                         if not (part / p.parent.name / p.name).exists())
            shutil.copy(added, part / added.parent.name / added.name)
            second = one_ingest(settings, graph, part, url)
            after = memberships(graph)
        general_before = {k: v for k, v in before.items() if k[0] == "general"}
        general_after = {k: v for k, v in after.items() if k[0] == "general"}
        unchanged = set(general_before) & set(general_after)
        out["added"] = {
            "article": str(added.relative_to(corpus)), "first": first, "second": second,
            "communities_before": len(general_before), "communities_after": len(general_after),
            "communities_unchanged": len(unchanged),
            "communities_changed_or_new": len(set(general_after) - unchanged),
            "unchanged_ids_kept": all(general_before[k] == general_after[k] for k in unchanged),
            "ids_given_to_other_communities": sorted(
                set(general_before.values()) & {v for k, v in general_after.items()
                                                 if k not in unchanged}),
            "report_calls": second["report_calls"],
            "topic_calls": second["topic_calls"], "topics_mined": second["topics_mined"],
            "topics_why": second["topics_why"],
        }
    return out


def run_graphrag(n: int, work: Path, quote: bool = False) -> dict[str, Any]:
    venv = Path(os.environ.get("GRAPHRAG_VENV", Path.home() / ".cache" / "msgraphrag-venv"))
    if quote:
        return {"ran": False, "why": "--graphrag quote", "quoted_from_issue_18":
                GRAPHRAG_QUOTED.get(n)}
    if not (venv / "bin" / "graphrag").exists():
        return {"ran": False, "why": f"no graphrag venv at {venv} (run.sh would pip-install "
                "graphrag==3.3.0 there; not done by this benchmark)",
                "quoted_from_issue_18": GRAPHRAG_QUOTED.get(n)}
    corpus = work / f"bbc-{n}"
    out = work / f"graphrag-{n}"
    subprocess.run(["bash", str(SHARED / "tools" / "msgraphrag" / "run.sh"), str(corpus),
                    str(out), "600", "100"], check=True, env={**os.environ,
                                                               "GRAPHRAG_VENV": str(venv)})
    s = json.loads((out / "summary.json").read_text())
    return {"ran": True, "chat_calls": s["chat_calls"],
            "report_calls": s["calls_by_kind"].get("community_report", 0),
            "prompt_tokens": s["prompt_tokens_chat"], "completion_tokens": s["completion_tokens"],
            "calls_by_kind": s["calls_by_kind"],
            "prompt_tokens_by_kind": s["prompt_tokens_by_kind"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, action="append")
    ap.add_argument("--runs", default="on,off,added")
    ap.add_argument("--port", type=int, default=8871, help="fakellm's port")
    ap.add_argument("--assign-batch", type=int, default=None,
                    help="text units per topic assignment call (default: the index's, "
                         "topic_assign.ASSIGN_BATCH); written to llm_cost-<N>-assign<K>.json "
                         "when given")
    ap.add_argument("--glean", type=int, default=None,
                    help="GLEAN (default: the setting's); written to llm_cost-<N>-glean<K>.json "
                         "when given")
    ap.add_argument("--graphrag", choices=["run", "quote"], default="run",
                    help="run GraphRAG on the same articles (when its venv is present), or "
                         "quote its last figures")
    ap.add_argument("--class", dest="llm_class", choices=["small", "capable"], default=None,
                    help="LLM_CLASS (default: the setting's); written to llm_cost-<N>-<class>"
                         ".json when given")
    args = ap.parse_args()
    extra: dict[str, Any] = {}
    if args.assign_batch is not None:  # this arm's batch: the index assigns one per call
        topic_assign.ASSIGN_BATCH = args.assign_batch
    if args.glean is not None:
        extra["glean"] = args.glean
    if args.llm_class is not None:
        extra["llm_class"] = args.llm_class
    RESULTS.mkdir(exist_ok=True)
    for n in args.articles or [20]:
        with tempfile.TemporaryDirectory() as tmp, fakellm(args.port) as url:
            work = Path(tmp)
            ours = run_ours(n, args.runs.split(","), url, work, extra)
            graphrag = run_graphrag(n, work, args.graphrag == "quote") \
                if Path(work / f"bbc-{n}").exists() else {}
        ref = graphrag if graphrag.get("ran") else (graphrag.get("quoted_from_issue_18") or {})
        off = ours.get("cache_off", {})
        ratios = {k: round(off[k] / ref[k], 3) for k in ("chat_calls", "prompt_tokens",
                                                         "completion_tokens", "report_calls")
                  if off and ref.get(k)}
        used = bench_settings(url, **extra)
        index = used.index
        res = {"articles": n, "topic_assign_batch": topic_assign.ASSIGN_BATCH,
               "glean": index.glean, "llm_class": "small" if used.llm.small else "capable",
               "ours": ours, "graphrag": graphrag,
               "ratios_cache_off_vs_graphrag": ratios, "machine": machine()}
        print(json.dumps({k: v for k, v in res.items() if k != "ours"}, indent=2))
        for name, run in ours.items():
            if name != "added":
                print(name, {k: run[k] for k in ("chat_calls", "prompt_tokens",
                                                 "completion_tokens", "report_calls",
                                                 "topic_prompt_share", "topic_calls",
                                                 "topics_kept", "mining_level")})
                print("  where", run["where"])
        if "added" in ours:
            a = ours["added"]
            print("added", {k: v for k, v in a.items() if k not in ("first", "second")})
        suffix = "" if args.assign_batch is None else f"-assign{args.assign_batch}"
        suffix += "" if args.glean is None else f"-glean{args.glean}"
        suffix += "" if args.llm_class is None else f"-{args.llm_class}"
        (RESULTS / f"llm_cost-{n}{suffix}.json").write_text(json.dumps(res, indent=2, default=str))


if __name__ == "__main__":
    main()
