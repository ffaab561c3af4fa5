"""Benchmark (not a test, no LLM call): what the checks on model output do on a corpus in a
given language - their unit tests' idea run over real documents: faithful text kept, text of
another document refused, a copy with another name caught.

For each document of FOLDER (any format ingest reads): its sentences (checks.sentences), the
language guessed (checks.language), the degenerate-reply check on 3-sentence passages of the
document against the document as context (kept: faithful) and against another document (the
``ungrounded`` rule should refuse), the report-finding check on its sentences (kept) and on
another document's (should drop), the answer sentence check (checks.copies) on its sentences
copied word for word (kept) and with the first name it gives swapped for a name of another
document (should drop; all sentences, and those giving one name), and the share of names among
its noun-phrase concepts:

    .venv/bin/python -m benchmarks.quality.checks_language --name de-debian-faq \\
        /work/extra/corpora/debian-faq-de
    .venv/bin/python -m benchmarks.quality.checks_language --name en-bbc-tech --limit 12 \\
        ../shared/corpora/bbc-news/tech

Writes bench-results/checks-language-NAME.json (the figures and a few examples of each).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from benchmarks.common import RESULTS
from neo4j_retag.checks.copies import SentenceCheck
from neo4j_retag.checks.degenerate import Subject, check
from neo4j_retag.checks.grounding import FindingCheck, names
from neo4j_retag.checks.language import language
from neo4j_retag.checks.sentences import split
from neo4j_retag.index.concepts import extract_concepts
from neo4j_retag.index.documents import Document, read_path

MIN_WORDS = 8  # a sentence shorter than this is a heading or a list item, not a claim
PER_DOCUMENT = 12  # sentences (and passages) judged per document


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _sentences(doc: Document) -> list[str]:
    return [s for s in split(doc.text) if len(s.split()) >= MIN_WORDS][:PER_DOCUMENT]


def _swap(sentence: str, other: list[str]) -> str | None:
    """``sentence`` with the first name it gives replaced by a name of ``other`` it lacks."""
    own = names(sentence)
    first = next((w for w in re.findall(r"\w+", sentence)[1:] if w.casefold() in own), None)
    new = next((n for n in other if n.casefold() not in own), None)
    if first is None or new is None:
        return None
    return re.sub(rf"\b{re.escape(first)}\b", new, sentence)


def _cased_names(text: str) -> list[str]:
    """The names of ``text`` (``grounding.names``) as the text writes them, most frequent
    first."""
    known = names(text)
    found = Counter(w for w in re.findall(r"\w+", text)
                    if w[:1].isupper() and w.casefold() in known)
    return [w for w, _ in found.most_common()]


def measure(docs: list[Document]) -> dict:
    out: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}

    def example(kind: str, text: str) -> None:
        if len(examples.setdefault(kind, [])) < 3:
            examples[kind].append(text[:300])

    sources = [(f"report {i}", d.title, d.text) for i, d in enumerate(docs)]
    copies = SentenceCheck(sources)
    langs = Counter(language(d.text) or "-" for d in docs)
    for i, doc in enumerate(docs):
        other = docs[(i + 1) % len(docs)]
        own, theirs = _sentences(doc), _sentences(other)
        out["sentences"] += len(split(doc.text))
        passages = [" ".join(own[k:k + 3]) for k in range(0, len(own), 3)]
        foreign = [" ".join(theirs[k:k + 3]) for k in range(0, len(theirs), 3)]
        for p in passages:
            out["replies"] += 1
            if v := check(p, Subject("", doc.text)):
                out["replies_refused"] += 1
                rules[v.rule] += 1
                example("reply_refused", f"{v.rule}: {p}")
        for p in foreign:
            out["foreign_replies"] += 1
            if (v := check(p, Subject("", doc.text))) and v.rule == "ungrounded":
                out["foreign_refused"] += 1
        findings = FindingCheck(doc.text)
        for s in own:
            out["findings"] += 1
            if why := findings("", s):
                out["findings_dropped"] += 1
                example("finding_dropped", f"{why}: {s}")
            out["copies"] += 1
            if why := copies(s):
                out["copies_dropped"] += 1
                example("copy_dropped", f"{why}: {s}")
            one = len(names(s)) == 1
            out["one_name"] += one
            if (swapped := _swap(s, _cased_names(other.text))) is not None:
                caught = copies(swapped) is not None
                out["swaps"] += 1
                out["swaps_caught"] += caught
                out["one_name_swaps"] += one
                out["one_name_swaps_caught"] += one and caught
                if one and not caught:
                    example("one_name_swap_kept", swapped)
        for s in theirs:
            out["foreign_findings"] += 1
            out["foreign_findings_dropped"] += bool(findings("", s))
        for c in extract_concepts(doc.text[:3000]):
            out["concepts"] += 1
            out["concept_names"] += c.kind == "name"
    return {
        "documents": len(docs), "languages": dict(langs), "sentences": out["sentences"],
        "faithful_replies_refused": _share(out["replies_refused"], out["replies"]),
        "refused_by_rule": dict(rules),
        "foreign_replies_refused": _share(out["foreign_refused"], out["foreign_replies"]),
        "own_findings_dropped": _share(out["findings_dropped"], out["findings"]),
        "foreign_findings_dropped": _share(out["foreign_findings_dropped"],
                                           out["foreign_findings"]),
        "faithful_copies_dropped": _share(out["copies_dropped"], out["copies"]),
        "sentences_giving_one_name": _share(out["one_name"], out["copies"]),
        "one_name_swaps_caught": _share(out["one_name_swaps_caught"], out["one_name_swaps"]),
        "name_swaps_caught": _share(out["swaps_caught"], out["swaps"]),
        "name_swaps": out["swaps"], "names_per_sentence": _names_per_sentence(docs),
        "concepts_that_are_names": _share(out["concept_names"], out["concepts"]),
        "counts": dict(out), "examples": examples}


def _names_per_sentence(docs: list[Document]) -> float | None:
    sents = [s for d in docs for s in _sentences(d)]
    return round(sum(len(names(s)) for s in sents) / len(sents), 2) if sents else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--name", required=True, help="bench-results/checks-language-NAME.json")
    ap.add_argument("--limit", type=int, default=0, help="the first N documents (0 = all)")
    args = ap.parse_args()
    docs = [d for d in read_path(args.folder)
            if isinstance(d, Document) and Path(d.path).name != "README.md"]
    docs = docs[:args.limit] if args.limit else docs
    if len(docs) < 2:
        raise SystemExit(f"{args.folder}: {len(docs)} documents read; 2 or more are needed")
    result = {"folder": str(args.folder), **measure(docs)}
    out = RESULTS / f"checks-language-{args.name}.json"
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k not in ("examples", "counts")},
                     ensure_ascii=False))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
