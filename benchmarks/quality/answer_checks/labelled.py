"""The labelled set of real replies (``replies.jsonl`` beside this file) and what each was
checked against: its question, its context and the prompt it answered.

One JSON object a line: ``id``, ``source`` (the stored result it was taken from), ``model``,
``method``, ``kind`` (answer, drift_step, statement: an eval claim, statement-shaped as a map
point is), ``question``, ``context`` (a pointer: ``corpus:sample`` is examples/sample-corpus,
``corpus:carol`` the book in shared/corpora), ``reply``, ``label`` (good: must never be
refused; bad: must be), ``rule`` (for a bad one, the kind of fault) and ``reason`` (one line,
written by reading the reply). The real context of a stored answer (the reports or text
units it was given) was not stored: the documents they came from stand in for it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from neo4j_retag.index.estimate import read_documents

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
REPLIES = HERE / "replies.jsonl"
# the prompt each kind of reply answered: header and echo checks read its text
PROMPTS = {"rag": "rag_answer", "local": "rag_answer", "lazy": "lazy_answer",
           "drift": "drift_reduce", "drift_step": "drift_local", "statement": "map"}


def rows() -> list[dict]:
    """Every labelled reply, in file order."""
    return [json.loads(line) for line in REPLIES.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _shared() -> Path:
    # shared/ beside the checkout (CI, /work/main) or beside its parent (a git worktree)
    return next((p / "shared" for p in (ROOT.parent, ROOT.parent.parent)
                 if (p / "shared" / "corpora").is_dir()), ROOT.parent / "shared")


@functools.cache
def context(ref: str) -> str:
    """The text a ``context`` pointer names. Raises FileNotFoundError when it is absent."""
    where = {"corpus:sample": ROOT / "examples" / "sample-corpus",
             "corpus:carol": _shared() / "corpora" / "christmas-carol" / "book.txt"}[ref]
    if not where.exists():
        raise FileNotFoundError(where)
    paths = sorted(where.iterdir()) if where.is_dir() else [where]
    return "\n".join(d.text for d in read_documents([p for p in paths
                                                     if p.suffix in (".txt", ".pdf")]))


@functools.cache
def prompt(row_method: str, kind: str) -> str:
    """The template text of the prompt a reply of ``kind`` by ``row_method`` answered."""
    name = PROMPTS.get(kind) or PROMPTS.get(row_method.split("@")[0], "reduce")
    return (ROOT / "prompts" / "query" / f"{name}.txt").read_text(encoding="utf-8")
