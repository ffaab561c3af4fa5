"""ReTAG's extract answer (RETAG_EXTRACT_WORDS): the sentences of the retrieved community reports
that match the question and its expanded keywords best, quoted with the report they come from,
up to a number of words. No answer call.

Why: a small model writing over reports invents. Hand-checked, Qwen2.5-Coder-1.5B's written
ReTAG answers on the Christmas Carol index held invented facts in 4 of 9, 7 of 10 and 7 of 10
answers - a right description in a made-up frame, a made-up relation, a contradiction, a splice of
two reports (docs/hand-check-retag-carol-heldout.md) - which a lexical check cannot see. A
sentence quoted from a report says only what the report says: on the held-out Carol questions
1 invented unit in 48, a report's own error, against 21 in 84 written. ReTAG's classify, keyword
expansion and top-p retrieval (Kim et al. 2025 §3.2-3.4) choose what is read; BM25 over the
reports' sentences replaces the map-reduce (Edge et al. 2024 §3.1.6) that a model too small to
summarise faithfully would do. It gives up the synthesis (docs/evaluation.md: 19 of 60 nuggets
against the written one call's 14 on the tuning questions, 4 of 70 against 8 on the held-out
ones, 8 of 58 against 12 on an index the small model built; on two unseen sets 6 of 76 and 1 of
72, local search 3 and 8): it answers what the reports say in the question's words. A report's
guess ("likely ...") is never quoted: the second held-out check's one invented unit was one. A
question no sentence shares a word with has nothing to quote: the caller has the model write
that answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ... import events
from ...citations import without_references
from ...config import Settings
from ...model import Answer, Citation, ContextReport, Query, ReportRow, Trace, timed
from ..common import bm25_order, no_answer_for, words

MIN_WORDS = 5  # a shorter piece of a report is a fragment (a list item, a label), not a statement
# a sentence ends at . ! or ? before a capital or an opening quote, not after a title ("Mr.")
_END = re.compile(r"(?<=[.!?])[\"”’)]?\s+(?=[\"“‘(]?[A-Z0-9])")
# ... nor after an initial ("J. Leech")
_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|St|Mt|Jr|Sr|Prof|Rev|Gen|Col|Capt|Lt|No|vs|etc|e\.g|i\.e|"
                    r"[A-Z])\.$")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.M)
# a report's own guess ("the plump sister, likely Fred's sister"; "'Old Scratch' (likely Scrooge or
# Marley)") is not a fact of the corpus, and a quote would present it as one: the hand checks
# found such guesses wrong, and a quoted one was the second held-out set's invented unit
_GUESS = re.compile(r"\b(?:likely|possibly|presumably|probably|perhaps|apparently|"
                    r"(?:may|might) have)\b", re.I)
# a statement ends with its punctuation; a report cut at RETAG_REPORT_TOKENS ends mid-sentence
_ENDED = re.compile(r"[.!?][\"”’)\]]*$")
# function words, which say nothing of what a sentence is about: a quote must share another word
# with the question or its keywords ("themes" counts: it is what a sensemaking question asks)
_FUNCTION = frozenset("""about above after again also been before being both could does doing
down during each from have having here into itself just more most much must only other over
same should some such than that their them then there these they this those through under until
very were what when where whether which while whom whose will with would your
""".split())  # noqa: SIM905
# words naming the corpus itself ("in the story", "across these articles") say what a question is
# about, not which sentence answers it: with them a short "Mr. Topper is a bachelor who appears
# in the story." outranked the answer
_CORPUS = frozenset("""story stories book books novel novels tale tales narrative narratives corpus
document documents text texts dataset article articles transcript transcripts episode episodes
""".split())  # noqa: SIM905


@dataclass(frozen=True)
class Quote:
    """One sentence of a report: ``report`` its id, ``finding`` the heading it stands under
    ("" for the report's summary), ``order`` its place in the report; ``quotable`` False for
    a guess or a sentence cut off, which are ranked with the others (the same BM25 statistics)
    but never quoted."""

    report: int
    finding: str
    text: str
    order: int
    quotable: bool = True


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (not after a title such as "Mr." or an initial)."""
    out: list[str] = []
    for piece in _END.split(text.strip()):
        if out and _TITLE.search(out[-1]):
            out[-1] += " " + piece
        elif piece.strip():
            out.append(piece.strip())
    return out


def quotes(report: ReportRow) -> list[Quote]:
    """The sentences of ``report`` (its markdown: ``# title``, summary, ``## finding`` and
    explanation), each with its finding, the report's data references removed; fragments
    under MIN_WORDS words are left out; a last sentence cut off (no closing punctuation) and
    the report's guesses ("likely", "possibly", "may have") are not ``quotable``."""
    out: list[Quote] = []
    finding = ""  # the summary: ranked on its own words (a title's "Story" matched every question)
    for block in re.split(r"\n\s*\n", report.full_content):
        block = block.strip()
        if m := _HEADING.match(block):
            if not block.startswith("# "):
                finding = m.group(1).strip().rstrip(".:;")
            if "\n" not in block:
                continue
            block = block.split("\n", 1)[1]
        for s in sentences(" ".join(without_references(block).split())):
            if len(s.split()) >= MIN_WORDS:
                out.append(Quote(report.id, finding, s, len(out), not _GUESS.search(s)))
    if out and not _ENDED.search(out[-1].text):  # the report was cut in this sentence
        out[-1] = replace(out[-1], quotable=False)
    return out


def _terms(text: str) -> set[str]:
    return {w for w in words(text) if len(w) > 3 and w not in _FUNCTION}


def pick(question: str, keywords: list[str], candidates: list[Quote], budget: int
         ) -> list[Quote]:
    """The quotes matching ``question`` and ``keywords`` best (BM25 over each quote with its
    finding; words naming the corpus, such as "story" or "articles", left out), best first,
    until the next would pass ``budget`` words (the first is always taken), its finding's
    heading counted once; a quote sharing no word with the question or keywords but function
    words, or not ``quotable``, is never picked."""
    query = " ".join([question, *keywords])
    topical = " ".join(w for w in words(query) if w not in _CORPUS)
    if asked := _terms(topical):
        query = topical
    else:  # a question only about "the story" keeps its words
        asked = _terms(query)
    picked: list[Quote] = []
    headed: set[tuple[int, str]] = set()
    used = 0
    for i in bm25_order(query, [f"{q.finding} {q.text}" for q in candidates]):
        q = candidates[i]
        if not q.quotable or not _terms(f"{q.finding} {q.text}") & asked:
            continue
        # a finding's heading is shown once, and counted as the answer's words too
        n = len(q.text.split()) + (0 if (q.report, q.finding) in headed
                                   else len(q.finding.split()))
        if picked and used + n > budget:
            break
        picked.append(q)
        headed.add((q.report, q.finding))
        used += n
    return picked


def render_quotes(picked: list[Quote]) -> str:
    """The answer text: one line per finding, in the order of its best quote, its quotes in
    the report's order, ``- **finding**: sentences [Data: Reports (id)]`` (a summary's
    sentences have no heading)."""
    groups: dict[tuple[int, str], list[Quote]] = {}
    for q in picked:
        groups.setdefault((q.report, q.finding), []).append(q)
    lines = []
    for (rid, finding), qs in groups.items():
        head = f"**{finding}**: " if finding else ""
        text = " ".join(q.text for q in sorted(qs, key=lambda q: q.order))
        lines.append(f"- {head}{text} [Data: Reports ({rid})]")
    return "\n".join(lines)


def extract_answer(settings: Settings, query: Query, reports: list[ReportRow],
                   trace: Trace) -> Answer | None:
    """Answer ``query`` with the sentences of ``reports`` (ReTAG's retrieved reports, as read:
    RETAG_REPORT_TOKENS) matching it and ``trace.keywords`` best, up to RETAG_EXTRACT_WORDS
    words, quoted and cited (:func:`pick`, :func:`render_quotes`). No LLM call. Citations: the
    reports quoted; ``sources``: every report read. With no reports the answer is the no-answer
    (``common.no_answer_for``). None, with a trace note, when no sentence shares a word with the
    question or its keywords ("What are the main themes of this corpus?" over reports that never
    say "themes"): there is nothing to quote, and the caller has a model write the answer."""
    words = settings.query.retag_extract_words
    trace.reports_retrieved = len(reports)
    if not reports:
        return Answer(answer=no_answer_for(settings, trace, "no community reports to answer from"),
                      trace=trace)
    with timed(trace.seconds, "answer"):
        candidates = [q for r in reports for q in quotes(r)]
        picked = pick(query.question, trace.keywords, candidates, words)
    if not picked:
        trace.note(f"no sentence of the {len(reports)} community reports retrieved shares a word "
                   "with the question or its keywords: nothing to quote (RETAG_EXTRACT_WORDS), a "
                   "model writes the answer")
        return None
    trace.note(f"the answer quotes {len(picked)} of the {len(candidates)} sentences of the "
               f"{len(reports)} community reports retrieved (RETAG_EXTRACT_WORDS={words}; 0 = "
               "a model writes the answer): no answer call")
    quoted = {q.report for q in picked}
    trace.context = [ContextReport(id=r.id, level=r.level, title=r.title, score=r.score,
                                   composed=r.composed, cited=r.id in quoted) for r in reports]
    events.emit("retrieved", reports=len(reports), method=trace.method, level=trace.level)

    def citation(r: ReportRow) -> Citation:
        return Citation(kind="report", id=r.id, title=r.title, level=r.level,
                        cited_in_answer=r.id in quoted)

    return Answer(answer=render_quotes(picked),
                  citations=[citation(r) for r in reports if r.id in quoted],
                  sources=[citation(r) for r in reports], trace=trace)
