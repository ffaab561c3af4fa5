"""The quoted answer (``ANSWER=quote``): sentences of the sources, chosen for the question and
quoted with where they come from - no answer call, nothing a model wrote.

What a method retrieved decides what can be quoted (``candidates``): a community report
composed from evidence gives its findings' source sentences, cited by the text units that hold
them (with their pages); a text unit gives its sentences; an entity its evidence sentences; a
report a model wrote (or an imported one) gives its own sentences, cited by the report.

The choice (:func:`pick`): BM25 over each sentence with its heading, by the question and its
expanded keywords (words naming the corpus itself - "story", "articles" - left out), keeps the
sentences that share a word with them, best first. When ``cover`` is set (a question about the
corpus as a whole, over reports) the words left are filled in turns over the groups (reports)
in their retrieved order, each giving its next sentence in its own order (the most central
first): "What are the main themes?" shares no word with the sources, and the answer is then
what the best reports say first. A report's guess ("likely", "may have": a model's, not the
source's) or a sentence cut off is never quoted. When nothing can be quoted the caller's
written answer is the declared fallback (query/answer).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...checks.language import CORPUS_WORDS, FUNCTION_WORDS, GUESS
from ...checks.sentences import split
from ...citations import without_references
from ...db import Graph, Record
from ...model import Citation, ReportRow
from ..common import bm25_order, words

MIN_WORDS = 5  # a shorter piece of a report is a fragment (a list item, a label)
_HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.M)
_ENDED = re.compile(r"[.!?…。！？][\"”’)\]]*$")  # a report cut at its token cap ends without one


@dataclass(frozen=True)
class Quote:
    """One sentence that may be quoted: its ``text``; the ``heading`` it stands under (a
    finding, an entity, a text unit's place; "" for a report's summary); the ``group`` it was
    selected through (``report 12``, ``unit <id>``, ``entity <key>``) and that group's
    ``rank``; its ``order`` in the group; what cites it (``kind`` Reports or Sources, ``ref``
    the id, ``location`` its place); ``quotable`` False for a guess or a sentence cut off
    (ranked with the others, never quoted); ``position`` its place in its document."""

    text: str
    heading: str
    group: str
    rank: int
    order: int
    kind: str
    ref: int | str
    location: str = ""
    quotable: bool = True
    position: tuple[str, int] = ("", 0)


def sentences(text: str) -> list[str]:
    """``text``'s sentences (``checks.sentences``: not cut after "Mr." or an initial)."""
    return split(text)


def report_quotes(report: ReportRow, rank: int) -> list[Quote]:
    """The sentences of a report a model wrote (its markdown: ``# title``, summary, ``##
    finding`` and explanation), each under its finding, the data references removed; pieces
    under MIN_WORDS words left out; its last sentence, cut at the report's token cap, and its
    guesses not ``quotable``."""
    out: list[Quote] = []
    finding = ""  # the summary: ranked on its own words (a title's "Story" matched everything)
    for block in re.split(r"\n\s*\n", report.full_content):
        block = block.strip()
        if m := _HEADING.match(block):
            if not block.startswith("# "):
                finding = m.group(1).strip().rstrip(".:;")
            if "\n" not in block:
                continue
            block = block.split("\n", 1)[1]
        for s in split(without_references(block)):
            if len(s.split()) >= MIN_WORDS:
                out.append(Quote(s, finding, f"report {report.id}", rank, len(out), "Reports",
                                 report.id, quotable=not GUESS.search(s)))
    if out and not _ENDED.search(out[-1].text):
        out[-1] = replace(out[-1], quotable=False)
    return out


def _sentence_rows(graph: Graph, ids: list[str]) -> dict[str, Record]:
    return {r["id"]: r for r in graph.run("query/sentences", ids=ids)} if ids else {}


def _cited(row: Record, heading: str, group: str, rank: int, order: int) -> Quote:
    # a source's own hedging ("was likely to be limited") is what it says: quotable
    return Quote(row["text"], heading, group, rank, order, "Sources", row["unit"] or "",
                 row.get("location") or "", True,
                 (row.get("document_id") or "", row.get("index") or 0))


def candidates(graph: Graph, reports: Sequence[ReportRow] = (),
               units: Sequence[str] = (), entities: Sequence[tuple[str, str]] = ()
               ) -> list[Quote]:
    """Every sentence the answer may quote: each report's (its findings' source sentences
    when it was composed from evidence, else its own), each text unit's (``units``: ids, in
    retrieved order), each entity's evidence (``entities``: (key, name), best first)."""
    out: list[Quote] = []
    evidence: dict[int, list[tuple[str, list[str]]]] = {}
    for r in reports:
        if r.findings and (f := json.loads(r.findings)) and all("sentences" in x for x in f):
            evidence[r.id] = [(x["summary"], x["sentences"]) for x in f]
    rows = _sentence_rows(graph, [i for fs in evidence.values() for _, ids in fs for i in ids])
    for rank, r in enumerate(reports):
        if r.id not in evidence:
            out += report_quotes(r, rank)
            continue
        k = 0
        for heading, ids in evidence[r.id]:
            for i in ids:
                if i in rows:
                    out.append(_cited(rows[i], heading, f"report {r.id}", rank, k))
                    k += 1
    for rank, row in enumerate(graph.run("query/unit_sentences", ids=list(units)) if units
                               else []):
        for k, s in enumerate(row["sentences"] or [{"text": t, "unit": row["unit"]}
                                                   for t in split(row["text"] or "")]):
            out.append(_cited({**s, "unit": row["unit"], "location": s.get("location")
                               or row["location"]}, row["location"] or "",
                              f"unit {row['unit']}", rank, k))
    if entities:
        found = {r["key"]: r["sentences"] for r in graph.run(
            "query/entity_evidence", keys=[k for k, _ in entities])}
        for rank, (key, name) in enumerate(entities):
            for k, s in enumerate(found.get(key) or []):
                out.append(_cited(s, name, f"entity {key}", rank, k))
    return _unique(out)


def _unique(quotes: list[Quote]) -> list[Quote]:
    """One quote per sentence text: the first (best-ranked) place it was selected through."""
    seen: set[str] = set()
    out = []
    for q in quotes:
        key = " ".join(q.text.casefold().split())
        if key not in seen:
            seen.add(key)
            out.append(q)
    return out


def _terms(text: str) -> set[str]:
    return {w for w in words(text) if len(w) > 3 and w not in FUNCTION_WORDS}


def pick(question: str, keywords: list[str], quotes: list[Quote], budget: int, *,
         cover: bool = False) -> list[Quote]:
    """The quotes to answer with, within ``budget`` words (a heading counted once with its
    first quote; the first quote is always taken): those sharing a word with the question
    or keywords, best BM25 match first - with ``cover``, in turns over their groups (each
    group's best match, then each one's next), then the others in turns over the groups by
    rank (module docstring). Guesses and sentences cut off are never picked."""
    query = " ".join([question, *keywords])
    topical = " ".join(w for w in words(query) if w not in CORPUS_WORDS)
    asked = _terms(topical) or _terms(query)
    if _terms(topical):
        query = topical
    picked: list[Quote] = []
    headed: set[tuple[str, str]] = set()
    used = 0

    def take(q: Quote) -> bool:
        nonlocal used
        n = len(q.text.split()) + (0 if (q.group, q.heading) in headed
                                   else len(q.heading.split()))
        if picked and used + n > budget:
            return False
        picked.append(q)
        headed.add((q.group, q.heading))
        used += n
        return True

    relevant = [quotes[i] for i in bm25_order(query, [f"{q.heading} {q.text}" for q in quotes])
                if quotes[i].quotable and _terms(f"{quotes[i].heading} {quotes[i].text}") & asked]
    if cover:  # the corpus as a whole: each group's best match in turn, then its next
        relevant = _in_turns(relevant, [q.group for q in relevant])
    for q in relevant:
        if not take(q):
            return picked
    if cover:
        rest = sorted((q for q in quotes if q.quotable and q not in picked),
                      key=lambda q: (q.rank, q.order))
        for q in _in_turns(rest, [q.group for q in rest]):  # groups by rank
            if not take(q):
                return picked
    return picked


def _in_turns(quotes: list[Quote], groups: list[str]) -> list[Quote]:
    """``quotes`` in turns over their groups, in the order ``groups`` first names them: each
    group's first, then each group's second..."""
    queues: dict[str, list[Quote]] = {g: [] for g in dict.fromkeys(groups)}
    for q in quotes:
        queues.setdefault(q.group, []).append(q)
    out: list[Quote] = []
    while any(queues.values()):
        for queue in queues.values():
            if queue:
                out.append(queue.pop(0))
    return out


def render(picked: list[Quote]) -> str:
    """The answer text: one line per heading and group, in the order of its best quote, its
    quotes in their documents' order (a report's own in its order), ``- **heading**:
    sentences [Data: Sources (ids)]`` (or ``Reports (id)``)."""
    lines: dict[tuple[str, str], list[Quote]] = {}
    for q in picked:
        lines.setdefault((q.group, q.heading), []).append(q)
    out = []
    for (_, heading), qs in lines.items():
        qs = sorted(qs, key=lambda q: (q.position, q.order))
        refs = ", ".join(str(r) for r in dict.fromkeys(q.ref for q in qs if q.ref != ""))
        head = f"**{heading}**: " if heading else ""
        cite = f" [Data: {qs[0].kind} ({refs})]" if refs else ""
        out.append(f"- {head}{_joined([q.text for q in qs])}{cite}")
    return "\n".join(out)


def _joined(sentences: list[str]) -> str:
    """Quoted sentences one after another, as written: one without a closing mark (a
    headline, a heading) is set off by a dash instead of running into the next."""
    out = ""
    for s in sentences:
        out += (" — " if out and not _ENDED.search(out) else " " if out else "") + s
    return out


def citations(picked: list[Quote]) -> list[Citation]:
    """What the quoted answer cites: each text unit (with the place of its first quote) or
    report once, in order of first quote."""
    out: dict[tuple[str, int | str], Citation] = {}
    for q in picked:
        if q.ref == "" or (q.kind, q.ref) in out:
            continue
        kind = "report" if q.kind == "Reports" else "text_unit"
        out[(q.kind, q.ref)] = Citation(kind=kind, id=q.ref, location=q.location or None)
    return list(out.values())
