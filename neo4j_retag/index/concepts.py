"""Noun-phrase concepts of a text unit, with no model and no LLM (the LazyGraphRAG index).

Why a heuristic of our own: GraphRAG's ``fast`` extractors fetch NLTK corpora or a spaCy model
at run time (they fail offline), spaCy's English models are on the package registry only as
third-party mirrors, and YAKE (the model-free keyphrase extractor there) is GPL/LGPL-licensed
and ranks keyphrases, not noun phrases. What a global question needs from a concept is that it
names the story's people, places and organisations, and its recurring subjects:

- **names**: maximal runs of capitalised words ("Bank of England", "Time Warner", "BBC"),
  joined over "of"/"de"/"&" inside a run; a run's first word at a sentence start counts only
  when it is an acronym, or no stopword whose lower-case form does not occur in the text and
  that is capitalised elsewhere or followed by a capitalised word (so "Sales rose" gives
  nothing, "Umbro said" gives Umbro); a leading article of the text's language ("The", Greek
  "Ο"/"Η"/"Το", Spanish "El" ...: ``checks.language.ARTICLES``) and a trailing "'s" are
  dropped (the stopwords and the articles are ``checks.language``'s, each list with its
  languages);
- **phrases**: runs of 1-3 lower-case content words between stopwords and punctuation (RAKE's
  candidates, Rose et al. 2010), kept when they recur in the text unit or have 2-3 words;
  a run of over 6 words (a language whose stopwords the list does not hold) gives its words,
  kept when they recur;
- **any script**: words are runs of letters and combining marks of any script (Unicode L
  and M: Devanagari's vowel signs stay in their words), capitals of any cased script
  (Latin, Cyrillic, Greek ...) mark names, Korean particles are taken off the word they are
  written on (김민준은 -> 김민준), a table cell ("|") is a run of its own; a text
  mostly in capitals is read in lower case (one "name" per sentence otherwise); scripts
  written without spaces (CJK, kana, Thai, Lao, Khmer, Myanmar) give character bigrams kept
  when they recur in the text unit - the n-gram fallback of Lucene's CJK analyzer, with no
  segmenter's dictionary to ship (docs/lazy.md says what it gives).

Concepts are ranked names first, then by frequency and length; at most MAX_CONCEPTS per text
unit. ``benchmarks/speed/lazy.py --concepts`` measures them on BBC (docs/benchmarks.md,
"Lazy mode").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import regex

from ..checks.language import (
    ARTICLE_WORDS,
    CONCEPT_STOPWORDS,
    JOINERS,
    PHRASE_STOPWORDS,
    is_hangul,
    language,
    strip_particle,
)
from ..keys import entity_key
from ..text import is_word

MAX_CONCEPTS = 15  # per text unit: 105 co-occurrence pairs at most
MAX_PHRASE_WORDS = 3
MAX_NAME_WORDS = 6  # a longer capitalised run is a heading or a title-case line, not a name
# scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, CJK): no word
# to find, so their runs give character bigrams (the n-gram fallback of Lucene's CJK analyzer)
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff"
                       "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# words (a letter of any script, then letters, combining marks, digits: \p{L}\p{M}\p{N}), and
# the punctuation that ends a name or phrase run (a list "Chelsea, Celtic", guillemets, a
# table cell's "|")
_TOKEN = regex.compile(r"\p{L}[\p{L}\p{M}\p{N}'’&.\-]*[\p{L}\p{M}\p{N}]|\p{L}\p{M}*|&|"
                       r"[,()\"“”«»„‘—–/|·،؛]")
# "|": a table cell; the danda (।, ॥) and the Arabic question mark end sentences too
_SENTENCE = re.compile(r"(?<=[.!?:;\"”»])\s+|(?<=[。！？।॥؟])|\n+|\|")


@dataclass(frozen=True)
class Concept:
    key: str  # the identity (entity_key of the name): case-folded, whitespace collapsed
    name: str  # as it reads in the text
    kind: str  # "name" (capitalised run) or "phrase" (lower-case content words)
    count: int  # occurrences in the text unit


def _clean(word: str) -> str:
    word = strip_particle(word.strip(".-'’"))
    for suffix in ("'s", "’s"):
        word = word.removesuffix(suffix)
    head = re.split(r"['’]", word, maxsplit=1)[0]
    return "" if head != word and head.lower() in CONCEPT_STOPWORDS else word  # "I'm", "It'll"


def _is_cap(word: str) -> bool:
    return word[:1].isupper()


def _names(sentence: list[str], lower_words: set[str], mid_caps: set[str],
           articles: frozenset[str] = ARTICLE_WORDS["en"]) -> list[str]:
    out: list[str] = []
    run: list[str] = []
    leading = articles | JOINERS

    def flush() -> None:
        while run and run[-1].lower() in JOINERS:
            run.pop()
        while run and run[0].lower() in leading:
            run.pop(0)
        if run and len(run) <= MAX_NAME_WORDS:
            out.append(" ".join(run))
        run.clear()

    for i, raw in enumerate(sentence):
        word = _clean(raw)
        if not word:
            flush()
            continue
        if _is_cap(word):
            acronym = len(word) > 1 and word.isupper()  # "UK", "BBC": a name anywhere
            if i == 0 and not acronym and (
                    word.lower() in CONCEPT_STOPWORDS or word.lower() in lower_words or (
                        word not in mid_caps and not _is_cap(_clean(sentence[1:2] and
                                                                    sentence[1] or "")))):
                continue  # a sentence's first word: capitalised by position only
            if word.lower() in CONCEPT_STOPWORDS and not run and word.lower() not in articles:
                continue  # "He", "In", "But" ...
            run.append(word)
        elif run and word.lower() in JOINERS:
            run.append(word)
        else:
            flush()
        if raw != word.rstrip("'’") and raw.endswith(("'s", "’s", ".")) and raw[-1] != ".":
            flush()  # a possessive ends the name: "Umbro's profits"
    flush()
    return out


def _phrases(sentence: list[str]) -> list[str]:
    out: list[str] = []
    run: list[str] = []
    for raw in [*sentence, ""]:
        word = _clean(raw).lower()
        # a Hangul syllable is a syllable, not a letter: two make a word (서울)
        content = (word and not _is_cap(_clean(raw)) and is_word(word)
                   and (len(word) > 2 or len(word) == 2 and is_hangul(word))
                   and word not in PHRASE_STOPWORDS)
        if content:
            run.append(word)
            continue
        if run and len(run) <= MAX_PHRASE_WORDS:
            out.append(" ".join(run))
        if len(run) > 1 and (len(run) > 2 * MAX_PHRASE_WORDS or run[0].upper() == run[0]):
            # no stopword to cut the run (a language the list does not hold), or a script
            # with no capitals to mark a name (Arabic, Hebrew, Hangul ...): its words too
            out += run
        run = []
    return out


def _mostly_capitals(text: str) -> bool:
    """True when most cased words are ALL CAPS: capitals then mark no name."""
    cased = [w for w in regex.findall(r"[\p{L}\p{M}]{2,}", text) if w.upper() != w.lower()]
    return len(cased) >= 5 and sum(w.isupper() for w in cased) > len(cased) / 2


def _bigrams(text: str) -> Counter[str]:
    """Bigrams of user-perceived characters (grapheme clusters: a Thai consonant with its
    vowel and tone marks is one), of each run of an unspaced script."""
    out: Counter[str] = Counter()
    for run in _UNSPACED.findall(text):
        g = regex.findall(r"\X", run)
        out.update("".join(g[i:i + 2]) for i in range(len(g) - 1))
    return out


def extract_concepts(text: str, limit: int = MAX_CONCEPTS) -> list[Concept]:
    """The text unit's concepts, best first (names, then recurring or multi-word phrases,
    and character bigrams of unspaced scripts that recur). Letters of any script count;
    a text mostly in capitals is read in lower case (phrases only: no name stands out)."""
    bigrams = _bigrams(text)
    text = _UNSPACED.sub(" | ", text)
    if _mostly_capitals(text):
        text = text.lower()
    sentences = [_TOKEN.findall(s) for s in _SENTENCE.split(text) if s.strip()]
    lower_words = {w for s in sentences for w in s if w.islower()}
    mid_caps = {_clean(w) for s in sentences for w in s[1:] if _is_cap(w)}
    articles = ARTICLE_WORDS.get(language(text) or "", frozenset())
    names: Counter[str] = Counter()
    phrases: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for words in sentences:
        for n in _names(words, lower_words, mid_caps, articles):
            if len(n) > 1 or n.isupper():
                key = entity_key(n)
                names[key] += 1
                shown.setdefault(key, n)
        for p in _phrases(words):
            phrases[p] += 1
    phrases.update(bigrams)
    ranked = [Concept(k, shown[k], "name", c) for k, c in names.items()]
    ranked.sort(key=lambda c: (-c.count, -len(c.key.split()), c.key))
    common = [Concept(p, p, "phrase", c) for p, c in phrases.items()
              if (c > 1 or " " in p) and p not in names]
    common.sort(key=lambda c: (-c.count * len(c.key.split()), c.key))
    return (ranked + common)[:limit]
