"""Benchmark results scored again (not a run): the answers saved in
bench-results/nuggets-NAME.json (benchmarks/quality/nugget_compare.py) matched again by the current
nugget rules (neo4j_retag.eval.nuggets), with no LLM and no Neo4j. Prints the mean recall per
method before -> after and every nugget found only under a negation; rewrites the file, its
.md and (for the run's own file) its folder bench-results/nuggets-NAME/.

    .venv/bin/python -m benchmarks.quality.nugget_rescore bench-results/nuggets-*.json

Kept from the run: whether the cited text holds each nugget (``in_cited``) and the claims
(both need the cited text from Neo4j), and the embedding match of a nugget still unmatched.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks.common import RESULTS
from neo4j_retag.eval.nugget_scores import nugget_markdown, nugget_summary
from neo4j_retag.eval.nuggets import Nugget, find, read_nuggets
from neo4j_retag.eval.records import AnswerRecord, Scores
from neo4j_retag.eval.report import write_folder


def rescore_hits(a: AnswerRecord, nuggets: list[Nugget]) -> None:
    """``a``'s nugget hits matched again by the current rules (``eval.nuggets.find``), in
    place (see the module doc for what is kept)."""
    n = a.nuggets
    if n is None:
        return
    by_id = {h.id: h for h in n.hits}
    for nug in nuggets:
        h = by_id.get(nug.id)
        m = find(nug, a.answer) if a.answer and h else None
        if h is None:
            continue
        h.matched, h.negated = m is not None and not m.negated, m is not None and m.negated
        if m is not None or not h.similar:  # an embedding match keeps its sentence
            h.alias, h.sentence = (m.alias, m.sentence) if m else (None, None)
        if h.matched:
            h.similar, h.similarity = False, None
    n.matched = sum(h.matched for h in n.hits)
    n.recall = round(n.matched / n.total, 3) if n.total else 0.0
    if n.matched_similar is not None:
        n.matched_similar = sum(h.matched or h.similar for h in n.hits)
        n.recall_similar = round(n.matched_similar / n.total, 3) if n.total else 0.0


def rescore(path: Path) -> int:
    """The answers saved in ``path`` (a nuggets-NAME.json) scored again by the current
    matching rules; the file, its .md and (for the run's own file) its folder rewritten.
    Prints the mean recall per method before -> after. Returns 0."""
    data = json.loads(path.read_text())
    nuggets = read_nuggets(Path("benchmarks/nuggets") / Path(data["nuggets_file"]).name)
    by_q = nuggets.for_questions(sorted({a["question"] for a in data["answers"]}))
    answers = [AnswerRecord.model_validate(a) for a in data["answers"]]
    methods = data["methods"]
    before = nugget_summary(answers, methods) or {}
    for a in answers:
        if a.question in by_q:
            rescore_hits(a, by_q[a.question])
    after = nugget_summary(answers, methods) or {}
    for m in methods:
        if m in before:
            b, c = before[m], after[m]
            sim = (f"; + by embedding {b.recall_similar.mean:.3f} -> "
                   f"{c.recall_similar.mean:.3f}" if b.recall_similar and c.recall_similar
                   else "")
            print(f"{path.name} {m}: recall {b.recall.mean:.3f} -> {c.recall.mean:.3f}{sim}")
    negated = [f"{a.method}: {a.question} [{h.id}] {h.sentence}" for a in answers
               if a.nuggets for h in a.nuggets.hits if h.negated]
    for line in negated:
        print(f"  negated: {line}")
    scores_ = data["scores"]
    scores_["nuggets"] = {m: s.model_dump(mode="json") for m, s in after.items()} or None
    data["answers"] = [a.model_dump(mode="json") for a in answers]
    data["rescored"] = ("scored again by the issue-45 rules (markers removed, negation, "
                        "A + B within one sentence); in_cited, claims and embedding matches "
                        "of still unmatched nuggets kept from the run")
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if path.name == f"nuggets-{data['name']}.json":
        result = Scores.model_validate(scores_)
        out = RESULTS / f"nuggets-{data['name']}"
        write_folder(out, result, answers, [])
        table = nugget_markdown(result.nuggets or {}, result.cost, answers, methods)
        (out / "nuggets.md").write_text(table)
        path.with_suffix(".md").write_text(table)
    return 0


def main() -> int:
    for path in sys.argv[1:]:
        rescore(Path(path))
    return 0 if sys.argv[1:] else 2


if __name__ == "__main__":
    sys.exit(main())
