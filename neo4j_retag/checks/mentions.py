"""Whether a sentence names an entity: what ties an extracted entity, relationship or claim to
the sentences that are its evidence, in any language with words.

A sentence names ``name`` when it holds the name's words in order (a word of four letters or
more may carry an ending: "Scrooge's", "Scrooges", "Nokias"), or when it holds one of the
name's *proper* words: a word of the name that the text never writes in lower case ("Yoran"
for "Amit Yoran", "Nokia" for "Nokia Corporation"; not "security" for "Department of Homeland
Security" when the text also says "security"). Scripts without case (CJK, Arabic) use the
first rule only. Accents and case are folded before comparing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from ..text import TERM

ENDING = 2  # letters a word of the text may add to a name's word ("Yoran" -> "Yorans")
MIN_STEM = 4  # a name's word shorter than this must match whole


def fold(word: str) -> str:
    """``word`` case-folded, accents dropped ("Pérez" -> "perez")."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The folded words (and numbers) of ``text``, in order."""
    return [fold(w) for w in TERM.findall(text)]


def lower_words(text: str) -> set[str]:
    """The words ``text`` writes in lower case somewhere (folded): they are common words
    there, never a name's proper word."""
    return {fold(w) for w in TERM.findall(text) if w[:1].islower()}


def _same(name_word: str, word: str) -> bool:
    if len(name_word) < MIN_STEM:
        return word == name_word
    return word.startswith(name_word) and len(word) - len(name_word) <= ENDING


def proper_words(name: str, common: set[str]) -> list[str]:
    """The words of ``name`` that are its own: of three letters or more, cased in the name,
    never written in lower case in the text (``common``: :func:`lower_words`)."""
    out = []
    for w in TERM.findall(name):
        f = fold(w)
        if len(f) >= 3 and w[:1].isupper() and f not in common and not f.isdigit():
            out.append(f)
    return out


class Mentions:
    """The check of sentences against one ``name`` in one text: ``mentions(sentence)``."""

    def __init__(self, name: str, common: set[str]) -> None:
        self.words = words(name)
        self.proper = proper_words(name, common)

    def __call__(self, sentence: str | list[str]) -> bool:
        found = words(sentence) if isinstance(sentence, str) else sentence
        return _holds(found, self.words) or any(_same(p, w) for p in self.proper
                                                 for w in found)


def _holds(found: list[str], part: list[str]) -> bool:
    n = len(part)
    return bool(n) and any(all(_same(part[k], found[i + k]) for k in range(n))
                           for i in range(len(found) - n + 1))


def grounded_name(name: str, text_words: list[str], common: set[str]) -> str | None:
    """``name`` as the text gives it: whole when the text holds its words in order, else the
    longest run of its words the text holds that has a proper word of its own ("Nokia" of
    "Nokia Corporation of Finland", "Scrooge" of "Ebenezer Scrooge"), cut from ``name``
    itself; None when the text holds no such run (a name the text never gives)."""
    spans = [(m.start(), m.end()) for m in TERM.finditer(name)]
    folded = [fold(name[a:b]) for a, b in spans]
    if _holds(text_words, folded):
        return name.strip()
    proper = set(proper_words(name, common))
    best: tuple[int, int] | None = None
    for i in range(len(folded)):
        for j in range(len(folded), i, -1):
            if best and j - i <= best[1] - best[0]:
                break
            if proper & set(folded[i:j]) and _holds(text_words, folded[i:j]):
                best = (i, j)
    if best is None:
        return None
    return name[spans[best[0]][0]:spans[best[1] - 1][1]]


def naming(name: str, sentences: Iterable[str], common: set[str]) -> list[int]:
    """The positions of the ``sentences`` that name ``name``."""
    check = Mentions(name, common)
    return [i for i, s in enumerate(sentences) if check(s)]
