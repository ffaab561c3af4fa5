"""Benchmark (not a test): the grounding suite - corpora a user would ingest, each indexed by the
embedded model itself, asked held-out questions, scored by nuggets - run by any checkout of the
project through its own CLI, so that today's code and an older commit are measured the same way
in one benchmark (issue 58: "both runs in one benchmark").

An *arm* is a checkout (``--code DIR``, default this one) plus settings (``--env K=V``). For each
corpus of the suite (``benchmarks/nuggets/suite/suite.json``) the arm gets a Neo4j data folder of
its own (``<home>/neo4j-data-suite-ARM-CORPUS``), started on ``--bolt-port`` only while it is used:

    # index every corpus with this checkout (the local LLM server must be running):
    .venv/bin/python -m benchmarks.quality.suite ingest --arm grounded
    # the same with the code of an older commit (a git worktree of it):
    git worktree add ../before b1226bf
    .venv/bin/python -m benchmarks.quality.suite ingest --arm before --code ../before
    # ask every held-out question with ask's default method, or others:
    .venv/bin/python -m benchmarks.quality.suite answer --arm grounded --methods default,local
    # the table: nuggets matched, answer words, seconds, prompt and completion tokens:
    .venv/bin/python -m benchmarks.quality.suite table --arms before,grounded

Files: bench-results/suite-ARM-CORPUS-ingest.json (the ingest's own --json output, wall
seconds, the LLM usage by stage from `stats --json`) and suite-ARM-CORPUS-answers.json (every
answer's --json output with its seconds, saved as it ends; a rerun asks only what is missing);
``table`` writes bench-results/suite-table.json and .md. Corpora outside the repository are
read where they are (``../shared/corpora``; the German one from Debian's package, see the suite
file). Exits 3 when an ingest or an answer failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS, ROOT, SHARED, machine
from neo4j_retag.checks.degenerate import content_words
from neo4j_retag.checks.grounding import names
from neo4j_retag.checks.sentences import split
from neo4j_retag.citations import without_references
from neo4j_retag.eval.nuggets import find, read_nuggets

SUPPORT_SHARE = 0.6  # a statement's content words one passage of the corpus must hold

SUITE = ROOT / "benchmarks" / "nuggets" / "suite" / "suite.json"
EXTRA = Path(os.environ.get("RETAG_SUITE_EXTRA", ROOT.parent / "extra" / "corpora"))


def corpora(suite: dict[str, Any], names: list[str] | None, role: str | None
            ) -> list[dict[str, Any]]:
    out = [c for c in suite["corpora"] if (not names or c["name"] in names)
           and (role is None or c["role"] == role)]
    if names and len(out) != len(names):
        known = [c["name"] for c in suite["corpora"]]
        raise SystemExit(f"unknown corpus in {names}; the suite has {known}")
    return out


def files(corpus: dict[str, Any]) -> list[Path]:
    """The corpus's files: ``root`` is under ../shared (``shared/...``), this checkout
    (``examples/...``) or RETAG_SUITE_EXTRA (the German FAQ unpacked from its package)."""
    root = corpus["root"]
    if root.startswith("shared/"):
        base = SHARED / root.removeprefix("shared/")
    elif (ROOT / root).is_dir():
        base = ROOT / root
    else:
        base = EXTRA / root.split()[0]
    paths = [base / f for f in corpus["files"]]
    if missing := [str(p) for p in paths if not p.is_file()]:
        raise SystemExit(f"{corpus['name']}: missing {missing} ({corpus.get('fetch', '')})")
    return paths


class Arm:
    """One checkout and its settings, run through its CLI against one corpus's Neo4j."""

    def __init__(self, name: str, code: Path, env: dict[str, str], bolt: int, http: int) -> None:
        self.name, self.code, self.extra = name, code.resolve(), env
        self.bolt, self.http = bolt, http

    def env(self, corpus: str) -> dict[str, str]:
        home = Path(os.environ.get("NEO4J_RETAG_HOME", Path.home() / ".cache" / "neo4j-retag"))
        return {**os.environ, "PYTHONPATH": str(self.code), "LLM_CACHE": "false",
                "NEO4J_BOLT_PORT": str(self.bolt), "NEO4J_HTTP_PORT": str(self.http),
                "NEO4J_DATA": str(home / f"neo4j-data-suite-{self.name}-{corpus}"),
                "NEO4J_HEAP": "1g", "NEO4J_PAGECACHE": "256m", "NO_COLOR": "1", **self.extra}

    def cli(self, corpus: str, *args: str, timeout: float = 6 * 3600
            ) -> tuple[int, str, str, float]:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "neo4j_retag", *args], cwd=self.code,
                              env=self.env(corpus), capture_output=True, text=True,
                              timeout=timeout)
        return proc.returncode, proc.stdout, proc.stderr, round(time.perf_counter() - t0, 1)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def ingest(arm: Arm, corpus: dict[str, Any], force: bool) -> dict[str, Any]:
    out = RESULTS / f"suite-{arm.name}-{corpus['name']}-ingest.json"
    if out.exists() and not force:
        done = json.loads(out.read_text())
        if done.get("rc") == 0:
            print(f"{corpus['name']}: indexed already ({out.name})", file=sys.stderr)
            return done
    paths = [str(p) for p in files(corpus)]
    rc, so, se, seconds = arm.cli(corpus["name"], "ingest", *paths, "--json")
    _, stats, _, _ = arm.cli(corpus["name"], "stats", "--json")
    record = {"arm": arm.name, "code": str(arm.code), "env": arm.extra, "corpus": corpus["name"],
              "files": paths, "rc": rc, "seconds": seconds, "ingest": _json(so),
              "stats": _json(stats), "stderr_tail": se[-3000:], "machine": machine()}
    out.write_text(json.dumps(record, indent=1, default=str))
    print(f"{corpus['name']}: rc {rc} in {seconds:.0f} s", file=sys.stderr)
    return record


def nugget_file(corpus: dict[str, Any]) -> Path:
    """The corpus's nugget set (``corpus["nuggets"]``: under benchmarks/nuggets/suite, or a
    path of the checkout given with --nuggets)."""
    name = corpus["nuggets"]
    return ROOT / name if "/" in name else ROOT / "benchmarks" / "nuggets" / "suite" / name


def answers_file(arm: str, corpus: dict[str, Any]) -> Path:
    own = corpus.get("own_nuggets")  # another nugget set than the suite's: its own file
    return RESULTS / (f"suite-{arm}-{corpus['name']}-answers"
                      + (f"-{Path(own).stem}" if own else "") + ".json")


def answer(arm: Arm, corpus: dict[str, Any], methods: list[str]) -> list[dict[str, Any]]:
    out = answers_file(arm.name, corpus)
    saved = json.loads(out.read_text()) if out.exists() else []
    done = {(a["question"], a["method"]) for a in saved if a.get("rc") in (0, 1)}
    nuggets = read_nuggets(nugget_file(corpus))
    for q in nuggets.questions:
        for m in methods:
            if (q.question, m) in done:
                continue
            args = ["ask", q.question, "--json"] + ([] if m == "default" else ["--method", m])
            rc, so, se, seconds = arm.cli(corpus["name"], *args, timeout=3 * 3600)
            saved = [a for a in saved if (a["question"], a["method"]) != (q.question, m)]
            saved.append({"question": q.question, "method": m, "rc": rc, "seconds": seconds,
                          "result": _json(so), "stderr_tail": se[-2000:]})
            out.write_text(json.dumps(saved, indent=1, default=str))
            print(f"{corpus['name']} {m} rc {rc} {seconds:.0f} s: {q.question}",
                  file=sys.stderr, flush=True)
    return saved


class Corpus:
    """A corpus's text as passages (two sentences running), to tell a supported statement:
    one passage holds at least SUPPORT_SHARE of its content words and the corpus holds every
    name it gives (judge-free, lenient to paraphrase, strict on a made-up name or fact)."""

    def __init__(self, corpus: dict[str, Any]) -> None:
        from neo4j_retag.index.documents import read_path
        text = "\n".join(getattr(d, "text", "") for p in files(corpus) for d in read_path(p))
        sents = split(text)
        self.passages = [content_words(" ".join(sents[i:i + 2])) for i in range(len(sents))]
        self.lower = text.casefold()

    def supported(self, statement: str) -> bool:
        words = content_words(statement)
        if any(n not in self.lower and n.rstrip("s") not in self.lower
               for n in names(statement)):
            return False
        return len(words) < 3 or any(len(words & p) >= SUPPORT_SHARE * len(words)
                                     for p in self.passages)


def score(corpus: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per method: questions, nuggets matched of all, statements and those the corpus
    supports (``Corpus``), answer words, seconds, prompt and completion tokens (as each
    answer's trace counted them), failed answers."""
    source = Corpus(corpus)
    nuggets = read_nuggets(nugget_file(corpus))
    by_q = nuggets.by_question()
    out: dict[str, Any] = {}
    for r in records:
        m = out.setdefault(r["method"], {"questions": 0, "nuggets": 0, "matched": 0,
                                         "words": 0, "statements": 0, "supported": 0,
                                         "seconds": 0.0, "prompt_tokens": 0,
                                         "completion_tokens": 0, "failed": 0, "no_answer": 0})
        res = r.get("result") or {}
        text = without_references(res.get("answer") or "")
        ns = by_q.get(r["question"], [])
        m["questions"] += 1
        m["nuggets"] += len(ns)
        m["failed"] += r["rc"] not in (0, 1) or not res
        m["no_answer"] += r["rc"] == 1
        m["matched"] += sum(1 for n in ns if (hit := find(n, text)) and not hit.negated)
        m["words"] += len(text.split())
        if r["rc"] == 0:
            statements = [x for line in text.splitlines()
                          for x in split(line.split("**: ", 1)[-1].lstrip("-* "))]
            m["statements"] += len(statements)
            m["supported"] += sum(source.supported(x) for x in statements)
        m["seconds"] += r["seconds"]
        llm = (res.get("trace") or {}).get("llm") or {}
        m["prompt_tokens"] += llm.get("prompt_tokens", 0)
        m["completion_tokens"] += llm.get("completion_tokens", 0)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("phase", choices=("ingest", "answer", "table"))
    ap.add_argument("--arm", default="current", help="the arm's name (its files and graphs)")
    ap.add_argument("--arms", default="", help="table: the arms to compare, comma-separated")
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout the arm runs")
    ap.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="a setting of the arm (repeatable)")
    ap.add_argument("--corpora", default="", help="comma-separated; default every one")
    ap.add_argument("--role", choices=("dev", "heldout"), default=None)
    ap.add_argument("--methods", default="default", help="answer: `default` = ask's own")
    ap.add_argument("--bolt-port", type=int, default=7691)
    ap.add_argument("--http-port", type=int, default=7478)
    ap.add_argument("--force", action="store_true", help="ingest again what was indexed")
    ap.add_argument("--nuggets", default=None, help="answer/table: this nugget set instead of "
                    "the suite's (a path in the checkout, e.g. a development set)")
    args = ap.parse_args(argv)
    suite = json.loads(SUITE.read_text())
    chosen = corpora(suite, [c for c in args.corpora.split(",") if c] or None, args.role)
    if args.nuggets:
        chosen = [{**c, "nuggets": args.nuggets, "own_nuggets": args.nuggets} for c in chosen]
    if args.phase == "table":
        return table(chosen, [a for a in args.arms.split(",") if a] or [args.arm])
    env = dict(kv.split("=", 1) for kv in args.env)
    arm = Arm(args.arm, args.code, env, args.bolt_port, args.http_port)
    failed = 0
    for corpus in chosen:
        rc, _, se, _ = arm.cli(corpus["name"], "neo4j", "start")
        if rc != 0:
            raise SystemExit(f"{corpus['name']}: Neo4j did not start: {se[-500:]}")
        try:
            if args.phase == "ingest":
                failed += ingest(arm, corpus, args.force)["rc"] != 0
            else:
                recs = answer(arm, corpus, args.methods.split(","))
                failed += sum(1 for r in recs if r["rc"] not in (0, 1))
        finally:
            arm.cli(corpus["name"], "neo4j", "stop")
    print(f"done: {failed} failed ({shlex.join(sys.argv[1:])})", file=sys.stderr)
    return 3 if failed else 0


def table(chosen: list[dict[str, Any]], arms: list[str]) -> int:
    rows = []
    for arm in arms:
        for corpus in chosen:
            ing = RESULTS / f"suite-{arm}-{corpus['name']}-ingest.json"
            ans = answers_file(arm, corpus)
            built = json.loads(ing.read_text()) if ing.exists() else {}
            usage: dict[str, int] = {}
            for row in (built.get("stats") or {}).get("llm_usage") or []:
                if row["stage"] != "embed":  # chat calls: what the model generated
                    for k in ("calls", "prompt_tokens", "completion_tokens"):
                        usage[k] = usage.get(k, 0) + (row.get(k) or 0)
            scored = score(corpus, json.loads(ans.read_text())) if ans.exists() else {}
            for method, s in scored.items() or [("-", {})]:
                rows.append({"arm": arm, "corpus": corpus["name"], "role": corpus["role"],
                             "method": method, "ingest_seconds": built.get("seconds"),
                             "ingest_calls": usage.get("calls"),
                             "ingest_completion_tokens": usage.get("completion_tokens"), **s})
    (RESULTS / "suite-table.json").write_text(json.dumps(rows, indent=1))
    head = ("| arm | corpus | method | matched / nuggets | supported / statements | words | "
            "s per answer | prompt tok. | ingest s | ingest completion tok. |\n"
            "|---|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        q = max(1, r.get("questions", 0))
        lines.append(f"| {r['arm']} | {r['corpus']} | {r['method']} | "
                     f"{r.get('matched', '-')} / {r.get('nuggets', '-')} | "
                     f"{r.get('supported', '-')} / {r.get('statements', '-')} | "
                     f"{r.get('words', 0) // q} | {r.get('seconds', 0) / q:.0f} | "
                     f"{r.get('prompt_tokens', 0) // q} | {r['ingest_seconds']} | "
                     f"{r['ingest_completion_tokens']} |")
    (RESULTS / "suite-table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
