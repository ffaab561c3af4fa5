"""Nugget evaluation without a judge (as the TREC RAG track): per question, the key facts
("nuggets") a good answer must contain, each with aliases; a nugget is matched when one of its
aliases occurs in the answer. Deterministic, no LLM.

The matching rules (each has its unit test):

- Unicode compatibility forms are folded (NFKC: full-width letters, ligatures such as "ﬁ");
- case is folded (``casefold``: "Straße" = "STRASSE");
- accents are dropped ("Pérez" = "Perez");
- every apostrophe, quote, dash and other punctuation is a word break ("Scrooge's" holds the
  word "Scrooge"; "well-known" = "well known");
- digit groups are joined ("1,000" = "1000");
- citation markers ("[Data: Reports (2)]") are removed first: their ids are no answer;
- an alias matches whole words only ("Tim" is not in "Timber");
- an alias "A + B" matches when every part occurs within one sentence;
- an occurrence under a negation - "not", "never", "cannot", "n't" or "no longer" within
  the three words before it - does not count: a nugget found only so is unmatched and listed
  as ``negated`` ("was not cancelled" does not show "cancelled"); the negations are English
  (``checks.language.NEGATIONS``): in another language a negated nugget counts as matched;
- a nugget without aliases is matched by its own text.

The nuggets file is JSON: a list of ``{question, nuggets: [{id, text, aliases}]}``, or
``{"note": "...", "questions": [that list]}`` (the note says how and when it was written).
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ..checks.language import NEGATIONS
from ..citations import MARKER
from ..errors import InputError

_DIGIT_GROUP = re.compile(r"(?<=\d)[,\u00a0\u202f ](?=\d{3}\b)")
_NON_WORD = re.compile(r"[^0-9a-z]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
ALL_OF = " + "
# `--nugget-similarity` alone: the cosine for all-MiniLM-L6-v2, the embedded model
# (benchmarks/quality/nugget_similarity.py; eval/nugget_similarity.py)
DEFAULT_SIMILARITY = 0.45


class Nugget(BaseModel):
    """One key fact: ``id`` (unique within its question), ``text`` (the fact, for people) and
    ``aliases`` (the phrases that show it in an answer)."""

    id: str
    text: str
    aliases: list[str] = Field(default_factory=list)

    def patterns(self) -> list[str]:
        """The aliases, or the text when there is none."""
        return [a for a in self.aliases if a.strip()] or [self.text]


class NuggetQuestion(BaseModel):
    question: str
    nuggets: list[Nugget]


class NuggetSet(BaseModel):
    """A nuggets file: its note (how and when the nuggets were written) and its questions."""

    note: str = ""
    questions: list[NuggetQuestion]

    def by_question(self) -> dict[str, list[Nugget]]:
        return {q.question: q.nuggets for q in self.questions}

    def for_questions(self, questions: list[str]) -> dict[str, list[Nugget]]:
        """The nuggets of each of ``questions`` (a questions file's), by that question's own
        text: a nugget question that differs only in case, spacing or a final "?" is the
        same question. Raises InputError naming the nearest nugget question for one that
        matches none (never dropped silently: it would score nothing)."""
        known = {_key(q.question): q.nuggets for q in self.questions}
        out = {}
        for q in questions:
            if (nuggets := known.get(_key(q))) is None:
                near = difflib.get_close_matches(q, [x.question for x in self.questions],
                                                 n=1, cutoff=0)
                raise InputError(f"the question {q!r} has no nuggets: the nearest nugget "
                                 f"question is {near[0]!r}" if near else
                                 f"the question {q!r} has no nuggets")
            out[q] = nuggets
        return out


def _key(question: str) -> str:
    return " ".join(question.casefold().split()).rstrip(" ?")


def normalise(text: str) -> str:
    """``text`` as the matching rules see it: NFKC, casefolded, accents dropped, digit groups
    joined, every run of non-alphanumerics one space, padded with a space on each side."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(ch))
    text = _DIGIT_GROUP.sub("", text)
    return f" {' '.join(_NON_WORD.sub(' ', text).split())} "


def _parts(alias: str) -> list[str]:
    return [p for p in (normalise(x) for x in alias.split(ALL_OF)) if p.strip()]


def _unmarked(text: str) -> str:
    return MARKER.sub(" ", text)


def _units(parts: list[str], text: str) -> list[str]:
    # an A + B alias within one sentence; one phrase anywhere ("Mrs. Cratchit" spans a split)
    return [text] if len(parts) == 1 else sentences(text)


def alias_in(alias: str, text: str) -> bool:
    """Whether ``alias`` (every part of an ``A + B`` alias within one sentence) occurs in
    ``text`` as whole words, both compared normalised, citation markers removed."""
    parts = _parts(alias)
    return bool(parts) and any(all(p in normalise(u) for p in parts)
                               for u in _units(parts, _unmarked(text)))


class Match(BaseModel):
    """Where a nugget was found: the alias and the answer's sentence that holds it, cut to
    200 characters; ``negated`` when it was found only under a negation (then it does not
    count)."""

    alias: str
    sentence: str
    negated: bool = False


# a negation within the three words before an occurrence (checks.language.NEGATIONS, English;
# normalised text: "wasn't" is "wasn t")
_NEGATION = re.compile(rf"(?:^| )(?:{'|'.join(sorted(NEGATIONS))}|\w+n t)(?: \S+){{0,2}} $")


def _negated(part: str, sentence: str) -> bool:
    """Whether every occurrence of ``part`` in the normalised ``sentence`` is negated."""
    starts = [m.start() for m in re.finditer(re.escape(part), sentence)]
    return bool(starts) and all(_NEGATION.search(sentence[:i + 1]) for i in starts)


def find(nugget: Nugget, text: str) -> Match | None:
    """The first alias of ``nugget`` that occurs in ``text`` (markers removed; an ``A + B``
    alias within one sentence), with its sentence (that of its first part); a Match with
    ``negated`` when every occurrence is negated; None if none occurs."""
    negated: Match | None = None
    text = _unmarked(text)
    for alias in nugget.patterns():
        parts = _parts(alias)
        for unit in _units(parts, text) if parts else []:
            norm = normalise(unit)
            if all(p in norm for p in parts):
                sentence = next((s for s in sentences(unit) if parts[0] in normalise(s)), "")
                m = Match(alias=alias, sentence=" ".join(sentence.split())[:200])
                if not any(_negated(p, norm) for p in parts):
                    return m
                negated = negated or m.model_copy(update={"negated": True})
    return negated


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (after ``.``, ``!``, ``?`` and at line breaks), the
    empty ones dropped: the units an answer is matched in."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def read_nuggets(path: Path) -> NuggetSet:
    """The nuggets file at ``path`` (either shape). Raises InputError for a file that is not
    valid JSON, has no question, a question without nuggets, or two nuggets with one id."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"{path}: not a readable JSON nuggets file ({err})") from err
    if isinstance(data, list):
        data = {"questions": data}
    try:
        nuggets = NuggetSet.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise InputError(f"{path}: {where}: {first['msg']}") from err
    if not nuggets.questions:
        raise InputError(f"{path}: no questions")
    for q in nuggets.questions:
        ids = [n.id for n in q.nuggets]
        if not ids:
            raise InputError(f"{path}: question {q.question!r} has no nuggets")
        if len(set(ids)) < len(ids):
            raise InputError(f"{path}: question {q.question!r} repeats a nugget id")
    return nuggets
