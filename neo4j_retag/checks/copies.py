"""Answer sentences held to the source sentences they copy: a copy about another subject, or a
quotation no source holds, is dropped before the answer is cited (ANSWER_SENTENCE_CHECK; the
query side acts on the verdict: ``query.answer.sentence_check``).

A small model answering over reports copies their sentences and puts the subject of the
question, or of the sentence before, in the place of the report's own ("Fred is also a source
of warmth and musical talent", of a report's "Scrooge's niece as a source of warmth and
musical talent"), or puts quotation marks round words no report says (docs/evaluation.md,
"Answer sentences held to the reports they copy", has the hand checks). A sentence *copies* a
source sentence when they share ``MIN_COPIED_WORDS`` content words or more, and that is
``MIN_COPIED_SHARE`` of the answer sentence's. It is dropped when every source sentence it
copies

- names none of the names it gives, both naming someone (the report's Scrooge, its Fred), or
- speaks of a woman where it speaks of a man, or the reverse (her / his),

or when it quotes three or more words that no source holds, or names a report's title with a
name no report holding that title gives ("The Cratchit family plays a central role in the
Robinson Crusoe Story Community"; only a title no report's text uses: one it does, "Millbrook
Rovers", is an entity's name). A sentence that copies nothing is left alone: the check finds
misattributed copies, it does not judge new wording. Lexical, no LLM call.

Names are capitalised words inside a sentence, so the check reads English as it is meant to;
a capitalised word after a time preposition ("during Christmas", "since January") says when,
not whom a sentence is about (its possessive says whose: "during Scrooge's visit"). Its word
lists (relations and roles, pronouns, time prepositions) are ``checks.language``'s, each with
its languages: in German, where every noun is capitalised, a noun counts as a name
(docs/architecture.md, "Checks").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from ..citations import MARKER
from ..model import ReportRow
from .degenerate import content_words
from .grounding import SENTENCE as SOURCE_SENTENCE
from .grounding import names
from .language import HE_WORDS, ROLE_WORDS, SHE_WORDS, TIME_PREPOSITIONS
from .sentences import answer_sentences

MIN_COPIED_WORDS = 4  # content words an answer sentence shares with the report sentence it copies
MIN_COPIED_SHARE = 0.5  # ... and their share of the answer sentence's
MIN_BLENDED_SHARE = 0.35  # a blend of two report sentences: judged by its pronouns only
MIN_QUOTED_WORDS = 3  # a quotation this long must be in a report
_QUOTE = re.compile(r"[\"“]([^\"“”\n]{3,300})[\"”]")
_WORD = re.compile(r"[^\W_]+")
_FIRST = re.compile(r"^\W*([A-Z][\w-]*)")
_LABEL = re.compile(r"^\W*\*\*[^*\n]{1,80}\*\*\s*:?\s*")  # "**Initial Isolation**: ..."
# "Scrooge's niece", "Fred's late wife": the sentence is about another person than the name
_ROLES = "|".join(sorted(ROLE_WORDS, key=lambda w: (-len(w), w)))
_ROLE = re.compile(rf"\b([A-Z][\w-]*)['’]s\s+(?:[a-z]+\s+)?(?:{_ROLES})\b")
_BARE = re.compile(r"^\W*(?:\d+[.)]?)?\W*$")  # a list number or bullet left alone on its line
# a capitalised run after a time preposition says when, not whom a sentence is about ("a joyful
# spirit, especially during Christmas"); a possessive says whose ("during Scrooge's visit"), and
# a name elsewhere stays one ("his man Friday")
_TIME = regex.compile(rf"\b(?i:{'|'.join(sorted(TIME_PREPOSITIONS))})\s+"
                      r"(?:\p{Lu}[\w-]*+(?!['’])\s*)+")


@dataclass(frozen=True)
class Dropped:
    """An answer sentence the check dropped, and why (the report sentence it copies)."""

    sentence: str
    reason: str


def _plain(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def _gender(text: str) -> str | None:
    words = set(_WORD.findall(text.casefold()))
    she, he = bool(words & SHE_WORDS), bool(words & HE_WORDS)
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
        self.known = names(_TIME.sub(" ", body))
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
        plain = _LABEL.sub("", _TIME.sub(" ", _ROLE.sub(" the person", sentence)))
        # a sentence's first word is a name when the reports write it capitalised inside one
        first = _FIRST.match(plain)
        lead = {first.group(1).casefold()} & self.known if first else set()
        return names(plain) | lead, roles

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
