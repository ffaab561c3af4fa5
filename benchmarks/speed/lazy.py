"""Benchmark (not a test): lazy mode (LazyGraphRAG) vs the full index on BBC-200 with fakellm.

Index: seconds and LLM calls of `ingest --lazy` vs the full `ingest` (with topics). Query, per
question (10 fixed global questions): LLM calls, prompt tokens and seconds of `lazy` at
budgets 50/100/500 vs `global` and `retag` on the full index, and on the lazy index (where
global/retag first build their reports on demand, then reuse them). Concept quality: do the
concepts name the stories' people, places and organisations (the capitalised names of each
headline found among its story's concepts)?

    RETAG_BENCH_BOLT_PORT=7705 RETAG_BENCH_HTTP_PORT=7405 RETAG_BENCH_DATA=<folder> \
        .venv/bin/python -m benchmarks.speed.lazy [--corpus DIR] [--fakellm-port 8851]

fakellm answers the one-letter relevance tests Y and N in turn (a script of its `text_generic`
kind, which the lazy answer and ReTAG's one answer call also get: their text, not their cost,
changes) and fills claims from the text: the counts measure the framework's cost, not answer
quality. Lazy runs at budgets 50/100/500 with the remote defaults, and at 100 with the local
ones (`lazy-local`: tests read 300 tokens of a text unit, stop at 6 relevant). Writes
bench-results/lazy.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import RESULTS, SHARED, machine, wipe
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.index.concepts import extract_concepts
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import Usage, run_with_llm
from neo4j_retag.model import Query
from neo4j_retag.query import answer
from neo4j_retag.query.lazy import LazyOptions
from neo4j_retag.services import neo4j_local

QUESTIONS = [
    "What are the main themes across this news corpus?",
    "How did technology companies and their products feature in the news?",
    "What were the main political debates and who took part in them?",
    "Which sporting events and athletes were in the news, and why?",
    "What were the major business and economic developments?",
    "Which people appear most often, and in what roles?",
    "What happened in the film, music and television industries?",
    "How did governments and regulators affect companies?",
    "What conflicts or controversies were reported?",
    "Which countries and cities feature, and in what stories?",
]
BUDGETS = (50, 100, 500)
# the embedded model's lazy budgets (config.LOCAL_LLM_BUDGETS), here on fakellm's instant
# replies: the time budget never binds
LOCAL = {"lazy_test_tokens": 300, "lazy_enough": 6}
SCRIPT = {"text_generic": ["Y", "N"]}  # fakellm's relevance answers, in turn


def settings_for(url: str) -> Settings:
    home = Settings().home
    bolt = int(os.environ.get("RETAG_BENCH_BOLT_PORT", "7689"))
    http = int(os.environ.get("RETAG_BENCH_HTTP_PORT", "7476"))
    data = Path(os.environ.get("RETAG_BENCH_DATA", home / f"neo4j-data-bench-{bolt}"))
    # fakellm's canned answers are about nothing: the answer check would refuse them
    s = Settings(openai_base_url=url, openai_model="bench", llm_concurrency=16, llm_cache=False,
                 neo4j_bolt_port=bolt, neo4j_http_port=http, neo4j_data=data,
                 llm_answer_check=False)
    neo4j_local.start(s)
    return s


def index(settings: Settings, corpus: Path, lazy: bool) -> dict:
    s = settings.model_copy(update={"index_method": "lazy" if lazy else "full"})
    with Graph(s) as graph:
        wipe(graph)
        usage = Usage()
        t0 = time.perf_counter()
        result = run_with_llm(s, lambda llm: run_ingest(graph, llm, s, [corpus], topics=not lazy),
                              usage)
        counts = graph.driver.execute_query(
            "RETURN COUNT { (:Chunk) } AS text_units, COUNT { (:Concept) } AS concepts, "
            "COUNT { ()-[:CO_OCCURS]->() } AS co_occurrences, COUNT { (:Entity) } AS entities, "
            "COUNT { (:Community) } AS communities").records[0].data()
    return {"method": "lazy" if lazy else "full", "seconds": round(time.perf_counter() - t0, 2),
            "seconds_per_stage": result.seconds, "llm_calls": usage.total.calls,
            "prompt_tokens": usage.total.prompt_tokens, **counts}


def ask_all(settings: Settings, index_kind: str) -> list[dict]:
    rows = []
    runs = [("global", None, {}), ("retag", None, {}), *(("lazy", b, {}) for b in BUDGETS),
            ("lazy-local", 100, LOCAL)]
    with Graph(settings) as graph:
        for name, budget, extra in runs:
            s, method = settings.model_copy(update=extra), name.split("-")[0]
            for i, q in enumerate(QUESTIONS):
                usage = Usage()
                t0 = time.perf_counter()
                rec = {"index": index_kind, "method": name, "budget": budget, "question": i}
                try:
                    a = run_with_llm(s, lambda llm, q=q, m=method, b=budget, s=s: answer(
                        m, graph, llm, s, Query(question=q, options=LazyOptions(budget=b))),
                        usage)
                    search = a.trace.lazy_search
                    rec.update(citations=len(a.citations),
                               lazy_search=search.model_dump() if search else None)
                except Exception as err:  # noqa: BLE001 - a benchmark records, never stops
                    rec["error"] = f"{type(err).__name__}: {err}"[:200]
                rec.update(llm_calls=usage.total.calls, prompt_tokens=usage.total.prompt_tokens,
                           completion_tokens=usage.total.completion_tokens,
                           seconds=round(time.perf_counter() - t0, 3),
                           stages={k: v.calls for k, v in usage.stages.items()},
                           stage_prompt_tokens={k: v.prompt_tokens
                                                for k, v in usage.stages.items()})
                rows.append(rec)
                print(json.dumps({k: rec[k] for k in ("index", "method", "budget", "question",
                                                      "llm_calls", "seconds")}), flush=True)
    return rows


def concept_quality(corpus: Path) -> dict:
    """Headline names (capitalised words past the first, and a first word that is an acronym
    or capitalised again in the body) found among the concepts of the story's text."""
    found = total = concepts = names = 0
    examples = []
    for f in sorted(corpus.glob("*/*.txt")):
        title, _, body = f.read_text().partition("\n")
        got = extract_concepts(body)
        keys = " | ".join(c.key for c in got)
        words = re.findall(r"[A-Za-z][\w'-]*", title)
        wanted = [w for i, w in enumerate(words) if w[:1].isupper() and (
            i > 0 or w.isupper() or re.search(rf"[a-z,] {re.escape(w)}\b", body))]
        total += len(wanted)
        found += sum(w.casefold() in keys for w in wanted)
        concepts += len(got)
        names += sum(c.kind == "name" for c in got)
        if len(examples) < 5 and f.parent.name not in {e["category"] for e in examples}:
            examples.append({"category": f.parent.name, "headline": title,
                             "concepts": [c.name for c in got]})
    return {"headline_names": total, "found_in_concepts": found,
            "recall": round(found / max(total, 1), 3),
            "concepts_per_story": round(concepts / 200, 1),
            "share_names": round(names / max(concepts, 1), 3), "examples": examples}


def summarise(rows: list[dict]) -> list[dict]:
    out = []
    keys = sorted({(r["index"], r["method"], r["budget"] or 0) for r in rows})
    for ix, method, budget in keys:
        rs = [r for r in rows if (r["index"], r["method"], r["budget"] or 0) == (ix, method,
                                                                               budget)]
        ok = [r for r in rs if "error" not in r]
        out.append({
            "index": ix, "method": method, "budget": budget or None, "questions": len(rs),
            "answered": len(ok),
            "llm_calls_mean": round(statistics.mean(r["llm_calls"] for r in rs), 1),
            "llm_calls_first": rs[0]["llm_calls"],
            "prompt_tokens_mean": round(statistics.mean(r["prompt_tokens"] for r in rs)),
            "completion_tokens_mean": round(statistics.mean(r["completion_tokens"] for r in rs)),
            "relevance_prompt_tokens_mean": round(statistics.mean(
                r["stage_prompt_tokens"].get("relevance", 0) for r in rs)),
            "tests_mean": round(statistics.mean(r["lazy_search"]["tests"] for r in ok), 1)
            if ok and method.startswith("lazy") else None,
            "seconds_mean": round(statistics.mean(r["seconds"] for r in rs), 2),
            "relevant_mean": round(statistics.mean(r["lazy_search"]["relevant"]
                                                   for r in ok), 1)
            if ok and method.startswith("lazy") else None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(SHARED / "corpora" / "bbc-news"))
    ap.add_argument("--fakellm-port", type=int, default=8851)
    args = ap.parse_args()
    corpus = Path(args.corpus)
    port = args.fakellm_port
    script = Path(tempfile.mkdtemp()) / "relevance.json"
    script.write_text(json.dumps(SCRIPT))
    proc = subprocess.Popen([sys.executable, str(SHARED / "tools" / "fakellm" / "fakellm.py"),
                             str(port), "--quiet", "--script", str(script)],
                            stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        settings = settings_for(f"http://127.0.0.1:{port}/v1")
        quality = concept_quality(corpus)
        full = index(settings, corpus, lazy=False)
        rows = ask_all(settings, "full")
        lazy = index(settings, corpus, lazy=True)
        rows += ask_all(settings, "lazy")
    finally:
        proc.terminate()
    out = {"corpus": str(corpus), "questions": QUESTIONS, "budgets": BUDGETS,
           "index": [full, lazy], "concept_quality": quality, "summary": summarise(rows),
           "runs": rows, "machine": machine()}
    RESULTS.mkdir(exist_ok=True)
    name = "lazy.json" if corpus.name == "bbc-news" else f"lazy-{corpus.name}.json"
    (RESULTS / name).write_text(json.dumps(out, indent=2, default=str))
    print(json.dumps({k: out[k] for k in ("index", "concept_quality", "summary")}, indent=2,
                     default=str))


if __name__ == "__main__":
    main()
