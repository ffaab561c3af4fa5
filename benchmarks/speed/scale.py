"""Benchmark (not a test): how `ingest` grows with the corpus, 1x to 16x the 200 BBC articles.

    .venv/bin/python -m benchmarks.speed.scale [--sizes 1,4,16] [--plot docs/scale.png]
    .venv/bin/python -m benchmarks.speed.scale --plot-only   # refit, redraw the PNG from the JSON

Corpora (generated into a temporary folder, never into the repository): 1x is the BBC sample
itself (../shared/corpora/bbc-news). An n-times corpus holds n x its tokens: the source documents
in a fixed order, then the same documents again in "rounds" 1, 2, ... with systematic renaming,
until the token budget is used (the last document cut at a paragraph). The source is the BBC
sample (``--source bbc``, the default: every size has the same kind of text, so the fit
measures the framework, not a change of text) or every corpus of ../shared/corpora/* (``--source
all``: BBC, A Christmas Carol, the podcast transcripts, whose long transcripts name far fewer
entities per token). Renaming in round r appends a syllable chosen by r
to each capitalised word that is not a stopword (the stopwords of fakellm's entity finder),
except one word in four (chosen by a hash of the word, the same in every round): in round 1
"Gordon Brown met Tony Blair in London" becomes "Gordonan Brownan met Tonyan Blairan in
Londonan", while a shared word such as "Microsoft" stays. So most entities of a
round are new (the graph grows like a bigger corpus, not like a repeated one) and a quarter of
names still join entities of other rounds (hubs grow, as they do in real news).

Each size is indexed with fakellm (instant, deterministic) in a child process of its own (so
peak RSS is that size's), on an emptied benchmark Neo4j (common.bench_settings; topics off, as
ingest_bbc.py). Per size: seconds per stage, LLM calls, graph elements, write rate during
extraction, our process's peak RSS, Neo4j heap used (peak of 1 s JMX samples), CPU seconds of
our process and of Neo4j. Then the growth exponent b of total seconds = a * tokens^b (and per
stage), least squares on logs. Targets: b <= 1.1, peak RSS <= 0.5 GB at 16x, 16x <= 16 x 1x.
Writes bench-results/scale.json and the plot. Needs the `bench` extra (matplotlib, numpy).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import benchmarks.common as common
from benchmarks.common import (
    RESULTS,
    ROOT,
    SHARED,
    bench_settings,
    fakellm,
    fakellm_cpu_seconds,
    machine,
    neo4j_cpu_seconds,
    wipe,
    with_llm,
    written,
)
from neo4j_retag import tokens
from neo4j_retag.db import Graph
from neo4j_retag.index.documents import read_path
from neo4j_retag.index.pipeline import run_ingest
from neo4j_retag.llm import Usage

BBC = SHARED / "corpora" / "bbc-news"
SYLLABLES = ["el", "an", "or", "is", "um", "et", "ov", "ia", "ur", "ek", "on", "ax", "id", "ol",
             "ep", "ua"]
CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
STAGES = ["load", "extract", "summarize", "communities", "reports"]
HEAP_USED = ("CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
             "RETURN attributes.HeapMemoryUsage.value.properties.used AS used")
# the old generation after the last collection: live data, not garbage awaiting collection
HEAP_LIVE = ("CALL dbms.queryJmx('java.lang:type=MemoryPool,*') YIELD name, attributes "
             "WHERE name CONTAINS 'Old Gen' "
             "RETURN attributes.CollectionUsage.value.properties.used AS live")


def _fakellm_stopwords() -> set[str]:
    spec = importlib.util.spec_from_file_location("fakellm", SHARED / "tools" / "fakellm" /
                                                  "fakellm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return set(module.STOP)


def renamer(round_: int, stop: set[str]):
    """The word substitution of round ``round_`` (0: none)."""
    suffix = SYLLABLES[round_ % len(SYLLABLES)] + SYLLABLES[round_ // len(SYLLABLES)] * (
        round_ >= len(SYLLABLES))

    def one(m: re.Match[str]) -> str:
        w = m.group(0)
        shared = hashlib.md5(w.encode()).digest()[0] % 4 == 0
        return w if shared or w.lower() in stop else w + suffix

    return lambda text: text if round_ == 0 else CAPITALISED.sub(one, text)


def build_corpus(times: int, out: Path, encoding: str, source: str = "bbc") -> dict:
    """Write the ``times``-fold corpus under ``out``; returns its documents and tokens."""
    bbc_docs = list(read_path(BBC))
    budget = times * sum(tokens.count(d.text, encoding) for d in bbc_docs)
    pool = [BBC] + (sorted(p for p in (SHARED / "corpora").iterdir()
                           if p.is_dir() and p != BBC) if source == "all" else [])
    docs = [(corpus.name, d) for corpus in pool for d in read_path(corpus)]
    stop, used, n, round_ = _fakellm_stopwords(), 0, 0, 0
    while used < budget:
        rename = renamer(round_, stop)
        for corpus, d in docs:
            if used >= budget:
                break
            text = rename(d.text)
            n_tok = tokens.count(text, encoding)
            if used + n_tok > budget:  # the last document: whole paragraphs up to the budget
                paras, kept, room = text.split("\n\n"), [], budget - used
                for p in paras:
                    room -= tokens.count(p, encoding) + 1
                    if room < 0:
                        break
                    kept.append(p)
                text = "\n\n".join(kept)
                n_tok = tokens.count(text, encoding)
                if not text.strip():
                    used = budget
                    break
            path = out / f"r{round_:02d}" / corpus / f"{n:05d}-{Path(d.path).stem}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            used, n = used + n_tok, n + 1
        round_ += 1
    return {"documents": n, "tokens": used, "rounds": round_}


class HeapSampler(threading.Thread):
    """Neo4j heap (JMX), sampled every ``every`` seconds: ``peak`` used (live data and garbage
    not yet collected: G1 lets it approach the heap size) and ``live_peak``, the old
    generation after a collection (bytes)."""

    def __init__(self, graph: Graph, every: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.graph, self.every, self.peak, self.live_peak = graph, every, 0, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            used = self.graph.driver.execute_query(HEAP_USED).records[0]["used"]
            live = [r["live"] or 0 for r in self.graph.driver.execute_query(HEAP_LIVE).records]
            self.peak = max(self.peak, used)
            self.live_peak = max([self.live_peak, *live])
            self.done.wait(self.every)

    def __enter__(self) -> HeapSampler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.join()


def one_size(corpus: Path, base_url: str) -> dict:
    """Index ``corpus`` on an emptied graph (run in a child process: its own peak RSS)."""
    settings = bench_settings(base_url)
    with Graph(settings) as graph:
        wipe(graph)
        usage = Usage()
        cpu0, neo0, fake0 = (time.process_time(), neo4j_cpu_seconds(settings),
                             fakellm_cpu_seconds())
        t0 = time.perf_counter()
        with HeapSampler(graph) as heap:
            result = with_llm(settings, usage, lambda llm: run_ingest(
                graph, llm, settings, [corpus], topics=False))
        total = time.perf_counter() - t0
        cpu, neo, fake = (time.process_time() - cpu0, neo4j_cpu_seconds(settings),
                          fakellm_cpu_seconds())
        stats, mentions, elements = written(graph)
    return {
        "documents": stats["documents"], "text_units": stats["text_units"],
        "entities": stats["entities"], "relationships": stats["relationships"],
        "claims": stats["claims"], "mentions": mentions, "communities": stats["communities"],
        "levels": len(stats["levels"]),
        "seconds_total": round(total, 2), "seconds_per_stage": result.seconds,
        "graph_elements_written": elements,
        "write_rate_elements_per_s": round(elements / max(result.seconds["extract"], 1e-9)),
        "llm_calls": usage.total.calls, "llm_failed": usage.total.failed,
        "failed_text_units": len(result.text_units_failed),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "neo4j_heap_peak_mb": round(heap.peak / 2**20),
        "neo4j_heap_live_peak_mb": round(heap.live_peak / 2**20),
        "cpu_seconds_ours": round(cpu, 2),
        "cpu_seconds_neo4j": None if neo is None or neo0 is None else round(neo - neo0, 2),
        "cpu_seconds_fakellm": None if fake is None or fake0 is None else round(fake - fake0, 2),
    }


def growth(runs: list[dict]) -> dict:
    """Exponents b of seconds = a * tokens^b, total and per stage (least squares on logs)."""
    import numpy as np

    x = np.log([r["corpus_tokens"] for r in runs])

    def fit(ys: list[float]) -> float:
        return round(float(np.polyfit(x, np.log(np.maximum(ys, 1e-3)), 1)[0]), 3)

    out = {"total": fit([r["seconds_total"] for r in runs])}
    for s in STAGES:
        out[s] = fit([r["seconds_per_stage"][s] for r in runs])
    # CPU seconds grow the same way on a busy machine as on an idle one; wall seconds do not
    for who in ("ours", "neo4j"):
        if all(r.get(f"cpu_seconds_{who}") for r in runs):
            out[f"cpu_{who}"] = fit([r[f"cpu_seconds_{who}"] for r in runs])
    return out


def plot(data: dict, path: Path) -> None:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = data["runs"]
    x = [r["corpus_tokens"] / 1000 for r in runs]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(x, [r["seconds_total"] for r in runs], "k-o", label="total", linewidth=2)
    for s in STAGES:
        ax.plot(x, [r["seconds_per_stage"][s] for r in runs], "-o", label=s, markersize=4)
    ref = runs[0]["seconds_total"] / runs[0]["corpus_tokens"]
    ax.plot(x, [ref * r["corpus_tokens"] for r in runs], "k:", label="linear from 1x")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xticks(x, [f"{r['times_bbc']}x\n{r['corpus_tokens'] / 1000:.0f}k" for r in runs])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("corpus size (times the BBC sample; thousand tokens)")
    ax.set_ylabel("seconds")
    m = data["machine"]
    ax.set_title(f"ingest with an instant fake LLM: time ~ tokens^"
                 f"{data['growth_exponent']['total']}\n({m['cpus']} cores, load average "
                 f"{m['loadavg'][1]} over 5 min)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,4,16", help="multiples of the BBC sample, e.g. 1,4")
    ap.add_argument("--source", choices=["bbc", "all"], default="bbc",
                    help="what larger corpora are made of (see above)")
    ap.add_argument("--plot", default=str(ROOT / "docs" / "scale.png"))
    ap.add_argument("--plot-only", action="store_true", help="refit and redraw from the JSON")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # child: index this corpus folder
    ap.add_argument("--llm", help=argparse.SUPPRESS)
    ap.add_argument("--llm-pid", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    out_json = RESULTS / "scale.json"
    if args.one:
        common.FAKELLM_PID[0] = args.llm_pid  # the parent's fakellm, for its CPU seconds
        print(json.dumps(one_size(Path(args.one), args.llm)))
        return
    if args.plot_only:  # and refit: the JSON may come from an older version of this script
        data = json.loads(out_json.read_text())
        data["growth_exponent"] = growth(data["runs"])
        out_json.write_text(json.dumps(data, indent=2))
        plot(data, Path(args.plot))
        return
    encoding = bench_settings("http://127.0.0.1:1/v1").encoding
    runs = []
    with fakellm() as url, tempfile.TemporaryDirectory(prefix="retag-scale-") as tmp:
        for times in [int(s) for s in args.sizes.split(",")]:
            folder = Path(tmp) / f"x{times}"
            corpus = build_corpus(times, folder, encoding, args.source) if times > 1 else {
                "documents": None, "rounds": 0, "tokens": sum(
                    tokens.count(d.text, encoding) for d in read_path(BBC))}
            child = subprocess.run(
                [sys.executable, "-m", "benchmarks.speed.scale", "--one",
                 str(folder if times > 1 else BBC), "--llm", url,
                 "--llm-pid", str(common.FAKELLM_PID[0])],
                capture_output=True, text=True,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(
                    [str(ROOT), os.environ.get("PYTHONPATH", "")])})
            if child.returncode:
                sys.exit(f"{times}x failed:\n{child.stderr[-3000:]}")
            run = {"times_bbc": times, "corpus_tokens": corpus["tokens"],
                   "corpus_rounds": corpus["rounds"], **json.loads(child.stdout)}
            print(json.dumps(run), flush=True)
            runs.append(run)
    data = {"source": args.source, "runs": runs, "machine": machine()}
    if len(runs) > 1:
        data["growth_exponent"] = growth(runs)
        first, last = runs[0], runs[-1]
        data["last_vs_first"] = {
            "size_ratio": round(last["corpus_tokens"] / first["corpus_tokens"], 2),
            "time_ratio": round(last["seconds_total"] / first["seconds_total"], 2)}
    print(json.dumps({k: v for k, v in data.items() if k != "runs"}, indent=2))
    RESULTS.mkdir(exist_ok=True)
    out_json.write_text(json.dumps(data, indent=2))
    if len(runs) > 1:
        plot(data, Path(args.plot))


if __name__ == "__main__":
    main()
