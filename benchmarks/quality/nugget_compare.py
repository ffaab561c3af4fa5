"""Benchmark (not a test): every query method side by side on one index, scored by nuggets
(`eval --nuggets`, judge-free): nugget recall, citations, claims supported by the cited text,
LLM calls, prompt tokens and seconds per answer.

    # fakellm (plumbing and cost only) on the benchmark Neo4j, BBC-200 ingested when empty:
    .venv/bin/python -m benchmarks.quality.nugget_compare benchmarks/nuggets/bbc200.json \\
        --name bbc200 --fakellm --ingest ../shared/corpora/bbc-news
    # a real endpoint on an index already built or imported (the `neo4j-retag` settings:
    # OPENAI_BASE_URL, OPENAI_MODEL, NEO4J_BOLT_PORT, NEO4J_DATA ... from the environment/.env):
    .venv/bin/python -m benchmarks.quality.nugget_compare benchmarks/nuggets/sample.json \\
        --name sample-qwen
    # the saved answers scored again with the current matching rules: nugget_rescore.py
    # are the nuggets grounded? (every nugget has an alias the corpus holds; no LLM, no Neo4j)
    .venv/bin/python -m benchmarks.quality.nugget_compare benchmarks/nuggets/bbc200.json \\
        --check-corpus ../shared/corpora/bbc-news

Writes bench-results/nuggets-NAME.json (the scores and every answer with its citations,
claims, nugget hits, cost and trace), bench-results/nuggets-NAME.md (the table) and the eval
folder bench-results/nuggets-NAME/ (nuggets.md, nuggets.png, claims.png, cost.png,
answers.json, scores.json). Methods: retag, global, global-dynamic, lazy at budgets 50 and 100,
drift, local, rag, auto (``--methods`` for others). Exits 3 when an answer or a claim
extraction failed (listed), as `eval` does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, bench_settings, fakellm, machine, with_llm
from benchmarks.runner import AnswerRun, read_results
from neo4j_retag.config import Settings
from neo4j_retag.db import Graph
from neo4j_retag.errors import Failure
from neo4j_retag.eval.nugget_scores import nugget_markdown, nugget_summary
from neo4j_retag.eval.nugget_similarity import clear_similar, match_similar
from neo4j_retag.eval.nuggets import DEFAULT_SIMILARITY, NuggetSet, find, read_nuggets
from neo4j_retag.eval.records import AnswerRecord
from neo4j_retag.eval.report import scores, write_folder
from neo4j_retag.eval.run import evaluate, method_spec
from neo4j_retag.eval.saved import answer_settings
from neo4j_retag.index.topics import build_topics
from neo4j_retag.llm import Usage
from neo4j_retag.llm.embeddings import Embedder
from neo4j_retag.model import GENERAL, no_progress
from neo4j_retag.query.retrieval import levels, query_level
from neo4j_retag.services import neo4j_local

METHODS = "retag,global,global-dynamic,lazy@50,lazy@100,drift,local,rag,auto"
SIMILAR_NOTE = "nuggets matched by embedding at"
SUFFIXES = (".txt", ".md")


def check_corpus(nuggets: NuggetSet, corpus: Path) -> list[str]:
    """The nuggets none of whose aliases occurs in the corpus text (all files below
    ``corpus``): each ``question: nugget id``."""
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in sorted(corpus.rglob("*")) if p.suffix in SUFFIXES
                     and p.name != "README.md")
    return [f"{q.question}: {n.id}" for q in nuggets.questions for n in q.nuggets
            if find(n, text) is None]


def prepare(settings: Settings, graph: Graph, corpus: Path | None, methods: list[str],
            fake: bool) -> list[str]:
    """Ingest ``corpus`` into an empty graph; topics for retag (built only with fakellm: a
    real model's topics are the user's `neo4j-retag topics build`). Returns notes."""
    notes = []
    if not levels(graph, GENERAL):
        if corpus is None:
            raise SystemExit("the graph has no community reports: give --ingest DIR (with "
                             "--fakellm), or ingest / import an index first")
        from benchmarks.common import ingest  # noqa: PLC0415 - only when ingesting
        notes.append(f"ingested {corpus}: {json.dumps(ingest(settings, corpus))}")
    if "retag" in methods and not graph.run("query/topics"):
        if fake:
            with_llm(settings, Usage(), lambda llm: build_topics(graph, llm, settings))
            notes.append("topics built (fakellm)")
        else:
            notes.append("no topics: retag answered in the general scope "
                         "(`neo4j-retag topics build` first to use topics)")
    return notes


def ask(args: argparse.Namespace, settings: Settings, nuggets: NuggetSet,
        questions: list[str], methods: list[str], answers: list[AnswerRecord],
        saved: AnswerRun) -> dict[str, Any]:
    """Ask what ``answers`` lacks, appending each record as it ends and saving them all
    (``saved.save``) with the run's level, notes, endpoint and model; returns those and the
    seconds the answers took."""
    done = {(a.question, a.method) for a in answers}
    neo4j_local.start(settings)
    with Graph(settings) as graph:
        run = {"methods": methods, "notes": prepare(settings, graph, args.ingest, methods,
                                                    args.fakellm),
               "level": query_level(graph, settings, args.level),
               "endpoint": settings.llm.base_url, "model": settings.llm.model}
        t0 = time.perf_counter()
        for i, q in enumerate(questions, 1):
            print(f"question {i}/{len(questions)}: {q}", file=sys.stderr, flush=True)
            for m in methods:
                if (q, m) in done:
                    continue
                _, got, _ = with_llm(settings, Usage(), lambda llm, q=q, m=m: evaluate(
                    graph, llm, settings, [q], [m], run["level"], no_progress, judged=False,
                    nuggets=nuggets.by_question()))
                answers += got
                a = got[0]
                print(f"  {m}: {a.seconds:.0f} s, {a.llm.calls} calls, "
                      f"{a.nuggets.matched if a.nuggets else '-'} nuggets"
                      f"{', failed: ' + a.error.line() if a.error else ''}",
                      file=sys.stderr, flush=True)
                saved.save(answers, **run)
    return run | {"seconds": round(time.perf_counter() - t0, 1)}


def similar(settings: Settings, answers: list[AnswerRecord], nuggets: NuggetSet,
            threshold: float | None) -> tuple[list[Failure], str | None]:
    """Nuggets matched by embedding at ``threshold`` on every answer, the saved ones too
    (None: any match a saved answer carries from an earlier run is cleared); the texts that
    failed and a note of the cost."""
    if threshold is None:
        for a in answers:
            if a.nuggets is not None:
                clear_similar(a.nuggets)
        return [], None
    usage = Usage()
    failed = with_llm(settings, usage, lambda llm: match_similar(
        Embedder.of(llm), answers, nuggets.by_question(), threshold))
    t = usage.total
    return failed, (f"{SIMILAR_NOTE} {threshold} ({settings.embedding.model}): {t.calls} "
                    f"embedding calls, {t.cached} cached, {t.prompt_tokens} tokens")


def run(args: argparse.Namespace, settings: Settings, nuggets: NuggetSet) -> int:
    """Answer by answer (a question by every method in turn, each answer's claims right
    after it), each record saved to bench-results/nuggets-NAME.partial.json as it ends, so an
    hours-long run on a slow local model can stop anywhere and ``--resume`` finishes it
    without asking anything twice. With nothing left to ask, Neo4j is not needed: the saved
    answers are only scored again (``--nugget-similarity``) and the results written."""
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for m in methods:
        method_spec(m)  # an unknown method fails before any answer
    questions = [q.question for q in nuggets.questions]
    if args.questions:
        questions = questions[:args.questions]
    out = RESULTS / f"nuggets-{args.name}"
    RESULTS.mkdir(exist_ok=True)
    files = AnswerRun("nuggets", args.name)
    final = files.final
    # an answer is kept for the same settings (model, query settings, level) when the level is
    # known before Neo4j is asked: given, or the saved run's
    level = args.level
    if args.resume and level is None:
        level = (read_results(files.partial) or read_results(final) or {}).get("level")
    key = None if level is None else answer_settings(settings, level)
    answers, saved = files.resumed(methods, questions, key) if args.resume else ([], {})
    done = {(a.question, a.method) for a in answers}
    # the saved run's level, notes, endpoint and model describe its answers; a run that asks
    # more replaces them (a resumed run should use the same model and level)
    this = {"level": saved.get("level", args.level), "notes": saved.get("notes", []),
            "endpoint": saved.get("endpoint"), "model": saved.get("model"), "seconds": 0.0}
    if any((q, m) not in done for q in questions for m in methods) or not answers:
        this = ask(args, settings, nuggets, questions, methods, answers, files)
    if this["level"] is None:
        raise SystemExit("the saved answers do not say their level: give --level")
    seconds = this["seconds"] + saved.get("seconds_total", 0)
    failures = ([a.error for a in answers if a.error]
                + [a.claims_error for a in answers if a.claims_error])
    failed, note = similar(settings, answers, nuggets, args.nugget_similarity)
    failures += failed
    notes = [n for n in this["notes"] if not n.startswith(SIMILAR_NOTE)] + ([note] if note
                                                                           else [])
    asked = [q for q in questions if any(a.question == q for a in answers)]
    result = scores(methods, [], this["level"], asked, answers, [], failures)
    result.nuggets = nugget_summary(answers, methods)
    result.nugget_similarity = args.nugget_similarity
    written = write_folder(out, result, answers, [])
    table = nugget_markdown(result.nuggets or {}, result.cost, answers, methods)
    (out / "nuggets.md").write_text(table)
    (RESULTS / f"nuggets-{args.name}.md").write_text(table)
    data = {"name": args.name, "nuggets_file": str(args.nuggets), "note": nuggets.note,
            "endpoint": this["endpoint"], "model": this["model"],
            "fakellm": args.fakellm, "level": this["level"], "methods": methods,
            "notes": notes, "seconds_total": seconds, "machine": machine(),
            "resumed": sorted(f"{m}: {q}" for q, m in done),
            "files": [str(f) for f in written],
            "scores": result.model_dump(mode="json"),
            "answers": [a.model_dump(mode="json") for a in answers]}
    final.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    files.done()
    print(table)
    print(f"written: {final}, {final.with_suffix('.md')}, {out}/")
    for f in result.failures:
        print(f"failed: {f.line()}", file=sys.stderr)
    return 3 if result.failures else 0


def _threshold(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: a cosine between 0 and 1")
    return value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nuggets", type=Path, help="a nuggets file (benchmarks/nuggets/*.json)")
    ap.add_argument("--name", help="results name: bench-results/nuggets-NAME.*")
    ap.add_argument("--methods", default=METHODS, help=f"comma-separated (default {METHODS})")
    ap.add_argument("--level", type=int, default=None, help="community level (QUERY_LEVEL)")
    ap.add_argument("--questions", type=int, default=None, help="only the first N questions")
    ap.add_argument("--resume", action="store_true",
                    help="keep the answers a stopped run saved (nuggets-NAME.partial.json) or "
                    "a finished one wrote (nuggets-NAME.json); ask only the others")
    ap.add_argument("--nugget-similarity", type=_threshold, nargs="?", const=DEFAULT_SIMILARITY,
                    default=None, metavar="T",
                    help="also match nuggets by embedding at cosine T (alone: "
                    f"{DEFAULT_SIMILARITY}), as `eval --nugget-similarity`; every answer, "
                    "the saved ones too (the embedding endpoint of the environment)")
    ap.add_argument("--fakellm", action="store_true",
                    help="fakellm on --fakellm-port and the benchmark Neo4j "
                    "(RETAG_BENCH_BOLT_PORT / RETAG_BENCH_HTTP_PORT); else the environment's "
                    "settings, as `neo4j-retag`")
    ap.add_argument("--fakellm-port", type=int, default=None)
    ap.add_argument("--ingest", type=Path, default=None,
                    help="with --fakellm: ingest this corpus when the graph has no reports")
    ap.add_argument("--check-corpus", type=Path, default=None, metavar="DIR",
                    help="only check that every nugget has an alias the corpus holds")
    args = ap.parse_args()
    nuggets = read_nuggets(args.nuggets)
    if args.check_corpus:
        missing = check_corpus(nuggets, args.check_corpus)
        n = sum(len(q.nuggets) for q in nuggets.questions)
        print(f"{len(nuggets.questions)} questions, {n} nuggets, "
              f"{n - len(missing)} grounded in {args.check_corpus}")
        for m in missing:
            print(f"not in the corpus: {m}")
        sys.exit(1 if missing else 0)
    if not args.name:
        ap.error("--name is required to run the methods")
    if args.ingest and not args.fakellm:
        ap.error("--ingest only with --fakellm (ingest a real index with `neo4j-retag ingest`)")
    if args.fakellm:
        with fakellm(port=args.fakellm_port) as url:
            sys.exit(run(args, bench_settings(url), nuggets))
    sys.exit(run(args, Settings(), nuggets))


if __name__ == "__main__":
    main()
