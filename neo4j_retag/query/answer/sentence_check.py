"""Answer sentences held to the report sentences they copy: a copy about another subject, or a
quotation no report holds, is dropped before the answer is cited (global search's and ReTAG's
reduce, ReTAG's one-call answer; ANSWER_SENTENCE_CHECK).

A small model answering over reports copies their sentences and puts the subject of the
question, or of the sentence before, in the place of the report's own: read by hand, 5 of the 7
invented facts of Qwen2.5-Coder-1.5B's one-call ReTAG answers on the Christmas Carol index were
such copies ("Fred is also a source of warmth and musical talent", of R13's "Scrooge's niece as a
source of warmth and musical talent"; "his harp and piano performances", of "her harp and piano
performances"), and one put quotation marks round words no report says
(docs/hand-check-retag-carol-direct.md). A sentence *copies* a report sentence when they share
``MIN_COPIED_WORDS`` content words or more, and that is ``MIN_COPIED_SHARE`` of the answer
sentence's. It is dropped when every report sentence it copies

- names none of the names it gives, both naming someone (the report's Scrooge, its Fred), or
- speaks of a woman where it speaks of a man, or the reverse (her / his),

or when it quotes three or more words that no report holds, or names a report's title with a
name no report holding that title gives ("The Cratchit family plays a central role in the
Robinson Crusoe Story Community"; only a title no report's text uses: one it does, "Millbrook
Rovers", is an entity's name). A sentence that copies nothing is left alone: the check
finds misattributed copies, it does not judge new wording. Lexical, no LLM call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...checks.degenerate import content_words
from ...checks.grounding import SENTENCE as SOURCE_SENTENCE
from ...checks.grounding import names
from ...citations import MARKER
from ...config import Settings
from ...model import ReportRow, Trace
from ..citations import answer_sentences
from ..common import no_answer_for

MIN_COPIED_WORDS = 4  # content words an answer sentence shares with the report sentence it copies
MIN_COPIED_SHARE = 0.5  # ... and their share of the answer sentence's
MIN_BLENDED_SHARE = 0.35  # a blend of two report sentences: judged by its pronouns only
MIN_QUOTED_WORDS = 3  # a quotation this long must be in a report
_QUOTE = re.compile(r"[\"“]([^\"“”\n]{3,300})[\"”]")
_WORD = re.compile(r"[^\W_]+")
_FIRST = re.compile(r"^\W*([A-Z][\w-]*)")
_LABEL = re.compile(r"^\W*\*\*[^*\n]{1,80}\*\*\s*:?\s*")  # "**Initial Isolation**: ..."
# "Scrooge's niece", "Fred's late wife": the sentence is about another person than the name
_ROLES = ("wife|husband|niece|nephew|sisters?|brothers?|sons?|daughters?|child|children|father|"
          "mother|parents?|uncle|aunt|cousins?|grandson|granddaughter|friends?|partner|fianc[ée]e?|"
          "clerk|employer|employees?|servants?|boss|ceo|chair|chairman|manager|owner|founder|"
          "spokes(?:person|man|woman)|lawyer|assistant|colleagues?|deputy|rival|widow|family")
_ROLE = re.compile(rf"\b([A-Z][\w-]*)['’]s\s+(?:[a-z]+\s+)?(?:{_ROLES})\b")
_BARE = re.compile(r"^\W*(?:\d+[.)]?)?\W*$")  # a list number or bullet left alone on its line
# a feast is capitalised but says when, not whom a sentence is about: "a joyful spirit,
# especially during Christmas" is no sentence about someone called Christmas (weekdays and
# months stay names: Crusoe's man Friday)
_WHEN = frozenset({"christmas", "eve", "easter", "whitsun", "whitsuntide", "michaelmas",
                   "halloween", "yuletide", "new", "year"})
_SHE = frozenset({"she", "her", "hers", "herself"})
_HE = frozenset({"he", "his", "him", "himself"})


@dataclass(frozen=True)
class Dropped:
    """An answer sentence the check dropped, and why (the report sentence it copies)."""

    sentence: str
    reason: str


def _plain(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def _gender(text: str) -> str | None:
    words = set(_WORD.findall(text.casefold()))
    she, he = bool(words & _SHE), bool(words & _HE)
    return "she" if she and not he else "he" if he and not she else None


class SentenceCheck:
    """The report sentences of one answer's context, read once; called with an answer
    sentence, it returns why the sentence misattributes what it copies, or None."""

    def __init__(self, sources: Sequence[tuple[str, str, str]], question: str = "") -> None:
        """``sources``: (label, title, text) per report read (``"report 13"``). Names are
        the words its text capitalises inside a sentence, headings and titles left out
        (capitalised throughout); a quotation may come from a title or the question too."""
        body = "\n".join(line for _, _, t in sources for line in t.split("\n")
                         if not line.lstrip().startswith("#"))
        self.known = names(body)
        # each report's words (title and text): a quotation must be in one of them (or the
        # question), and a sentence naming a title names what the reports give with it
        self.bodies = [f" {_plain(title + ' ' + t)} " for _, title, t in sources]
        self.plain = "\n".join([_plain(question), *self.bodies])
        # a report's title before its colon ("Robinson Crusoe Story Community"), when no
        # report's text uses it: a title the text uses ("Millbrook Rovers") names an entity,
        # which an answer may rightly give beside anything
        texts = " ".join(f" {_plain(t)} " for t in body.split("\n"))
        self.titles = [(label, heading) for label, heading in
                       ((label, _plain(title.split(":")[0])) for label, title, _ in sources)
                       if len(heading.split()) >= 2 and f" {heading} " not in texts]
        self.sentences = []
        for label, _, text in sources:
            for s in SOURCE_SENTENCE.split(MARKER.sub(" ", text)):
                words = content_words(s)
                if len(words) >= MIN_COPIED_WORDS:
                    self.sentences.append((label, s.strip(), words, *self._names(s),
                                           _gender(s)))

    def _names(self, sentence: str) -> tuple[set[str], set[str]]:
        """The names the reports know that ``sentence`` gives as its own, and those it gives
        only as whose relative it speaks of ("Scrooge's niece": about the niece)."""
        roles = {m.casefold() for m in _ROLE.findall(sentence)}
        plain = _LABEL.sub("", _ROLE.sub(" the person", sentence))
        # a sentence's first word is a name when the reports write it capitalised inside one
        first = _FIRST.match(plain)
        lead = {first.group(1).casefold()} & self.known if first else set()
        return (names(plain) | lead) - _WHEN, roles

    def __call__(self, sentence: str) -> str | None:
        text = MARKER.sub(" ", sentence)
        for quoted in _QUOTE.findall(text):
            plain = _plain(quoted)
            if len(plain.split()) >= MIN_QUOTED_WORDS and plain not in self.plain:
                return f'it quotes "{quoted.strip()}", which no report read says'
        own = self._names(text)[0]
        plain = f" {_plain(text)} "
        for label, title in self.titles:
            if f" {title} " in plain:
                # a name no report read gives beside the title (its own report included)
                holders = [b for b in self.bodies if f" {title} " in b]
                alien = sorted(n for n in own - set(title.split())
                               if not any(f" {n} " in b or f" {n.rstrip('s')}" in b
                                          for b in holders))
                if alien:
                    return (f"it puts {', '.join(alien)} in {label}'s \"{title}\", and no "
                            "report read names them with it")
        words = content_words(text)
        # a loose copy (a blend of two report sentences) is judged by its pronouns only
        copied = [(s, len(words & s[2]) >= MIN_COPIED_SHARE * len(words))
                  for s in self.sentences if len(words & s[2]) >= MIN_COPIED_WORDS
                  and len(words & s[2]) >= MIN_BLENDED_SHARE * len(words)]
        if not copied:
            return None
        gender = _gender(text)
        reasons = []
        for (label, source, _, their, roles, their_gender), close in copied:
            if close and own and their and not own & their:
                reasons.append(f"it copies {label}'s sentence about {', '.join(sorted(their))} "
                               f"with {', '.join(sorted(own))} in its place: \"{source[:160]}\"")
            elif close and own & roles and not own & their:
                reasons.append(f"it copies {label}'s sentence about a relative of "
                               f"{', '.join(sorted(own & roles))} as if about "
                               f"{', '.join(sorted(own & roles))}: \"{source[:160]}\"")
            elif gender and their_gender and gender != their_gender:
                reasons.append(f"it copies {label}'s sentence about a "
                               f"{'woman' if their_gender == 'she' else 'man'} as if of a "
                               f"{'woman' if gender == 'she' else 'man'}: \"{source[:160]}\"")
            else:
                return None  # one faithful copy is enough
        return reasons[0]


def drop_misattributed(text: str, sources: Sequence[tuple[str, str, str]],
                       question: str = "") -> tuple[str, list[Dropped]]:
    """``text`` without the sentences :class:`SentenceCheck` finds misattributed (lines and
    the other sentences kept as written), and those dropped with their reason."""
    check = SentenceCheck(sources, question)
    dropped: list[Dropped] = []
    lines = []
    for line in text.split("\n"):
        kept: list[str] = []
        for sentence in answer_sentences(line):
            why = check(sentence)
            if why is None:
                kept.append(sentence)
            else:
                dropped.append(Dropped(sentence=sentence.strip(), reason=why))
        if not line.strip() or (kept and not _BARE.match(" ".join(kept))):
            lines.append(" ".join(kept))
    return "\n".join(lines), dropped


def report_sources(reports: Sequence[ReportRow]) -> list[tuple[str, str, str]]:
    """The (label, title, text) sources of :class:`SentenceCheck` for ``reports``."""
    return [(f"report {r.id}", r.title, r.full_content) for r in reports]


def check_sentences(text: str, question: str, reports: Sequence[ReportRow], settings: Settings,
                    trace: Trace, more: Sequence[tuple[str, str, str]] = ()) -> str:
    """``text``, the answer to ``question``, without its misattributed sentences
    (:func:`drop_misattributed` against ``reports`` as the call read them, and ``more``
    sources: (label, title, text) of the text units it read; ANSWER_SENTENCE_CHECK), each
    dropped one in
    ``trace.sentences_dropped`` and a note. When every sentence is dropped the answer is the
    no-answer (``common.no_answer_for``): a text made only of copies about the wrong subject
    is not passed off as an answer."""
    if not settings.query.sentence_check or not text.strip():
        return text
    kept, dropped = drop_misattributed(
        text, [*report_sources(reports), *more],
        question)
    if not dropped:
        return text
    trace.sentences_dropped += [f"{d.sentence} -- {d.reason}" for d in dropped]
    if not kept.strip():
        return no_answer_for(settings, trace, f"every sentence of the answer ({len(dropped)}) "
                             "copies a report sentence about another subject or quotes words "
                             "no report holds (see sentences_dropped)")
    trace.note(f"{len(dropped)} answer sentence(s) dropped: each copies a report sentence "
               "about another subject or quotes words no report read holds (first: "
               f"{dropped[0].reason[:200]})")
    return kept.strip()
