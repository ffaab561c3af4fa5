"""Free-text LLM output without the model's chatter: lead-ins ("Here is the summary:", "A
comprehensive summary of the given descriptions would be:", the question echoed: "-Question:
What ...?"), labels ("Summary:"), sign-offs
("I hope this helps!") and wrappers (surrounding quotes, a markdown fence).

Instruction-tuned models add these around the text they were asked for; stored as an entity
description or printed as an answer they read as if they were data. Every free-text output of
the index and the query side (description summaries, community report fields, map points,
reduce and RAG answers) passes through :func:`strip_chatter`; callers count the outputs that
changed (``Trace.chatter_stripped``, the ingest result's ``chatter_stripped``).
Also :func:`clean`, the hygiene every text that reaches Neo4j gets (documents, imported
tables), and words in any script (``WORD``, ``TERM``, a text's ``language`` and its leading
``ARTICLES``, Korean particles). Plain string work, no I/O: it sits beside ``model`` so
both sides can use it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

import regex

# C0/C1 controls except tab, newline, carriage return; plus lone surrogates
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def clean(text: str) -> str:
    """NFC, no control characters or lone surrogates, normalised line ends: every text that
    reaches Neo4j (documents, imported tables) passes through here."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", unicodedata.normalize("NFC", text))


# an opening interjection: "Sure!", "Certainly.", "Of course,"
_INTERJECTION = re.compile(
    r"^\s*(?:sure(?: thing)?|certainly|of course|okay|ok|absolutely|great|alright)\b[!.,:]*\s+",
    re.I)
# the start of a sentence that only announces the text that follows
_ANNOUNCE = (r"(?:here(?:'s|\s+is|\s+are)|below\s+(?:is|are)|the\s+following|"
             r"(?:a|an|the|this|my|your)\s+(?:[\w-]+\s+){0,4}?"
             r"(?:summary|description|answer|response|version|overview|"
             r"synthesis|rewrite|paragraph)\b|"
             r"based\s+on\s+[^:\n]{0,150}?,\s*(?:here|the\s+(?:summary|description|answer)))")
# ... ending in a colon at the end of its line ("Here is a summary of X:\n")
_LEADIN_LINE = re.compile(rf"^\s*{_ANNOUNCE}[^:\n]{{0,200}}:[ \t]*(?:\n|$)", re.I)
# ... or ending on the same line with an announcing verb ("The summary would be: X")
_LEADIN_INLINE = re.compile(
    rf"^\s*{_ANNOUNCE}[^:\n]{{0,200}}?\b(?:would\s+be|is\s+as\s+follows|as\s+follows|is|are|"
    r"reads)\s*:[ \t]*", re.I)
# a bare label: "Summary:", "**Description:**", "## Answer:"
_LABEL = re.compile(
    r"^\s*(?:#{1,6}\s*)?[*_]{0,2}(?:final\s+|comprehensive\s+|combined\s+|merged\s+|"
    r"entity\s+|relationship\s+|concise\s+)?(?:summary|description|answer|response|output|"
    r"result|text)[*_]{0,2}\s*:\s*[*_]{0,2}[ \t]*", re.I)
# a closing sentence or paragraph offering more help
_SIGNOFF = re.compile(
    r"(?:\n\s*|(?<=[.!?])\s+)(?:i\s+hope\s+th(?:is|at)\s+helps|let\s+me\s+know\s+if|"
    r"feel\s+free\s+to|please\s+let\s+me\s+know|if\s+you\s+(?:have|need)\s+(?:any\s+)?"
    r"(?:more|further|other|additional))[^\n]*\s*$", re.I)
# the question echoed on a line of its own, as the prompt labels it ("-Question: What ...?")
_QUESTION = re.compile(r"^\s*-*\s*question\s*-*\s*:[^\n]*\n", re.I)
_FENCE = re.compile(r"^\s*```[\w-]*[ \t]*\n(.*?)\n?```\s*$", re.S)
_QUOTES = {'"': '"', "\u201c": "\u201d", "'": "'", "\u00ab": "\u00bb"}


class Stripped(NamedTuple):
    """The cleaned text and whether anything was removed."""

    text: str
    changed: bool


def _unwrap(text: str) -> str:
    """One layer of wrapping removed: a fence around everything, or quotes around everything
    (only when the inside holds no other quote of that kind, so '"A" and "B"' stays)."""
    m = _FENCE.match(text)
    if m:
        return m.group(1).strip()
    t = text.strip()
    if len(t) >= 2 and t[0] in _QUOTES and t[-1] == _QUOTES[t[0]]:
        inner = t[1:-1]
        if t[0] not in inner and _QUOTES[t[0]] not in inner:
            return inner.strip()
    if t.startswith("**") and t.endswith("**") and t.count("**") == 2 and len(t) > 4:
        return t[2:-2].strip()
    return t


def _strip_once(text: str) -> str:
    t = _unwrap(text)
    t = _INTERJECTION.sub("", t, count=1) if _INTERJECTION.match(t) and len(t) > 20 else t
    for pattern in (_QUESTION, _LEADIN_LINE, _LEADIN_INLINE, _LABEL):
        m = pattern.match(t)
        if m and t[m.end():].strip():  # never strip the whole text away
            t = t[m.end():]
            break
    m = _SIGNOFF.search(t)
    if m and t[:m.start()].strip():
        t = t[:m.start()]
    return t.strip()


def strip_chatter(text: str) -> Stripped:
    """``text`` without lead-ins, labels, sign-offs and wrappers, repeated until nothing more
    goes (so 'Here is the summary:\\n"Scrooge is a miser."' becomes 'Scrooge is a miser.').

    Never returns an empty text for a non-empty input: chatter is only removed around
    something. Whitespace-only differences do not count as ``changed``."""
    cur = (text or "").strip()
    while True:
        nxt = _strip_once(cur)
        if nxt == cur or not nxt:
            break
        cur = nxt
    return Stripped(cur, cur != (text or "").strip())


# --- words in any script ---------------------------------------------------------------
# a word is a run of letters and combining marks (Unicode L and M): Devanagari's vowel signs
# (सहकारी), Thai's tone marks and Hebrew's points are part of their words, where Python's
# \w (letters and digits only) cut them off; TERM adds digits (BM25 terms, grounding)
WORD = regex.compile(r"[\p{L}\p{M}]+")
TERM = regex.compile(r"[\p{L}\p{M}\p{N}]+")
_HANGUL = regex.compile(r"\p{Hangul}+")
_GREEK = regex.compile(r"\p{Greek}")
_LATIN = regex.compile(r"\p{Latin}")

# leading articles (and a name's particles) per language with a list: stripped from the start
# of a name in a text of that language ("Ο Γιώργος" -> "Γιώργος", "El Banco" in Spanish),
# never in another ("Los Angeles", "Le Mans", "Des Moines" in English text stay whole)
ARTICLES = {
    "en": "the",  # not "a"/"an": "A Coruña", "An Post"
    "de": "der die das den dem des ein eine einer einem einen",
    "fr": "le la les un une",
    "es": "el la los las un una",
    "it": "il lo la gli le i un uno una",
    "pt": "o a os as um uma",
    "nl": "de het een",
    "el": "ο η το οι τα τον την του της των τους τις ένας μια ένα",
}
ARTICLE_WORDS = {k: frozenset(v.split()) for k, v in ARTICLES.items()}
# the function words that tell Latin-script languages apart (the most frequent, per
# language; a language is chosen when its words are at least 3 and the most frequent)
_FUNCTION = {
    "en": "the and of to is was in that for with on are it",
    "de": "der die das und ist nicht mit den von zu ein eine auf sich des im",
    "fr": "le la les et est dans pour des une du que sur pas au qui",
    "es": "el la los las y en por con del una que es para se al",
    "it": "il gli della che non è per con una sono del nel alla di",
    "pt": "o os da do que não uma para com em das dos ao é",
    "nl": "de het een van en is niet op dat met voor zijn",
}
_FUNCTION_WORDS = {k: frozenset(v.split()) for k, v in _FUNCTION.items()}
LANGUAGE_WORDS = frozenset().union(*_FUNCTION_WORDS.values())  # any of the seven
# Korean particles written on to the word before them (김민준은, 김민준이 -> 김민준), longest
# first; stripped only where two syllables or more stay (a name keeps its own last syllable)
_JOSA_TEXT = ("에서는 에게서 으로는 에서 에게 한테 께서 으로 부터 까지 처럼 보다 이나 이라 "
              "라고 은 는 이 가 을 를 의 에 와 과 도 로 만 랑")
_JOSA = sorted(_JOSA_TEXT.split(), key=len, reverse=True)


def is_word(text: str) -> bool:
    """True when ``text`` is one word: letters and combining marks of any script only."""
    return bool(text) and WORD.fullmatch(text) is not None


def language(text: str) -> str | None:
    """The language of ``text`` among those with an article list (``ARTICLES``): Greek by its
    script, a Latin-script one by its function words (English when unsure); None for any
    other script."""
    if len(_GREEK.findall(text)) > len(_LATIN.findall(text)):
        return "el"
    if not _LATIN.search(text):
        return None
    counts = dict.fromkeys(_FUNCTION_WORDS, 0)
    for w in WORD.findall(text.casefold()):
        for lang, words in _FUNCTION_WORDS.items():
            counts[lang] += w in words
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] >= 3 and counts[best] > counts["en"] else "en"


def strip_particle(word: str) -> str:
    """A Hangul word without the particle written on to it (``김민준은`` -> ``김민준``);
    any other word as it is."""
    if not _HANGUL.fullmatch(word):
        return word
    for josa in _JOSA:
        if word.endswith(josa) and len(word) - len(josa) >= 2:
            return word[:-len(josa)]
    return word


def is_hangul(word: str) -> bool:
    return _HANGUL.fullmatch(word) is not None
