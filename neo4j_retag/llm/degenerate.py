"""Free text that reads as an answer but is none: a degenerate reply.

Small local models at greedy decoding write fluent text that answers nothing. The quickstart's
SmolLM2-135M printed, for "What are the main themes of this corpus?" over four local news
stories: "Transcultural and global communication" and "The power of storytelling" (about no
story), "Data-Driven Decision Making" (one word of the data), and "The importance of the
importance score in a dataset" with 19 near-copies of that line. Each rule below names one
such kind; :func:`degenerate` returns the first that holds, and the LLM client treats it as an
unusable reply (``degenerate``): asked again once with a repetition penalty, then the item
fails and the caller gives the honest no-answer.

Plain string work, no I/O; the thresholds are the issue's (distinct lines < 0.6, one 6-gram
over a third of the words), the others measured on the replies above and on grounded answers.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from ..citations import MARKER
from ..text import WORD

MIN_DISTINCT_LINES = 0.6  # share of distinct normalised lines below which text repeats itself
NGRAM = 6
NGRAM_SHARE = 1 / 3  # one 6-gram covering more than this share of the words: a loop
NEAR_COPY = 0.8  # difflib ratio above which two lines are the same line with tiny variations
NEAR_COPY_SHARE = 0.5  # share of lines that are near-copies of an earlier line
MIN_GROUNDED = 1 / 3  # share of an answer's own content words that its context must hold
MIN_CONTEXT_WORDS = 5  # a context with fewer content words cannot tell grounded from not

_WORD = WORD  # letters and combining marks of any script
_LIST_MARK = re.compile(r"^\s*(?:[-*•>#]+|\(?\d+[.)]|[a-z][.)])\s*", re.I)
# function words and the words every answer of this product uses about its data (not a
# subject of the corpus): they neither ground an answer nor make it ungrounded
_STOP_TEXT = """
about above after again against also although among another answer answers around because
been before being below between both cannot could data does doing down during each either
else every from further given have having here however into itself just made main make many
more most much must neither other others over same several should since some such than that
their theirs them themselves then there therefore these they this those though through thus
under until upon very were what when where whether which while whom whose will with within
without would your yours also based context corpus document documents question questions
report reports source sources text texts theme themes topic topics overall various include
includes including key important information provided mentioned discussed said says
"""
_STOP = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class Subject:
    """What a free-text answer must be about: the ``question`` it answers and the ``context``
    it was given (the data only, never the prompt's instructions: a template word such as
    "importance score" must not count as grounding)."""

    question: str = ""
    context: str = ""


def _norm_line(line: str) -> str:
    text = MARKER.sub(" ", line)
    text = _LIST_MARK.sub("", text)
    return " ".join(_WORD.findall(text.casefold()))


def _stem(word: str) -> str:
    # a crude stem: "communities" and "community", "plans" and "plan" meet; enough to tell
    # an answer about the data from one about nothing in it
    return word[:6] if len(word) > 6 else word.rstrip("s")


def content_words(text: str) -> set[str]:
    """Stems of the words of ``text`` over 3 letters that are not function words."""
    return {_stem(w) for w in _WORD.findall(text.casefold()) if len(w) > 3 and w not in _STOP}


def repeated_lines(text: str) -> str | None:
    """Why ``text``'s lines repeat one another, or None: fewer than 60 % of its (5 or more)
    normalised lines distinct, or half of its (4 or more) lines near-copies of an earlier one
    (one list item with tiny variations)."""
    lines = [n for n in (_norm_line(ln) for ln in text.splitlines()) if n]
    if len(lines) >= 5 and len(set(lines)) / len(lines) < MIN_DISTINCT_LINES:
        return (f"{len(lines) - len(set(lines))} of its {len(lines)} lines repeat another "
                "line")
    if len(lines) >= 4:
        copies = sum(
            any(difflib.SequenceMatcher(None, line, earlier).ratio() >= NEAR_COPY
                for earlier in lines[:i])
            for i, line in enumerate(lines) if i)
        if copies / len(lines) >= NEAR_COPY_SHARE:
            return f"{copies} of its {len(lines)} lines are near-copies of an earlier line"
    return None


def repeated_ngram(text: str) -> str | None:
    """Why ``text`` loops on one phrase, or None: one word 6-gram whose occurrences cover more
    than a third of its (24 or more) words."""
    words = _WORD.findall(MARKER.sub(" ", text).casefold())
    if len(words) < 4 * NGRAM:
        return None
    grams = Counter(tuple(words[i:i + NGRAM]) for i in range(len(words) - NGRAM + 1))
    gram, n = grams.most_common(1)[0]
    if n >= 3 and n * NGRAM > len(words) * NGRAM_SHARE:
        return f"the phrase {' '.join(gram)!r} makes up over a third of the text ({n} times)"
    return None


def echoed_question(text: str, question: str) -> str | None:
    """Why ``text`` is the question given back, or None: every word of it over 3 letters is
    one of the question's (or, with none, the same words)."""
    if not question.strip() or not text.strip():
        return None
    words, asked = _WORD.findall(text.casefold()), _WORD.findall(question.casefold())
    own = {_stem(w) for w in words if len(w) > 3}
    echo = own <= {_stem(w) for w in asked} if own else words == asked
    return "the question echoed back, not an answer" if echo else None


def ungrounded(text: str, subject: Subject) -> str | None:
    """Why ``text`` is about nothing in its context, or None: of its content words (but the
    question's that the context lacks), none - or, with 3 or more, under a third - occur in
    the context (one of 5 or more content words: less is too little to judge by)."""
    context = content_words(subject.context)
    # the question's words tell nothing either way unless the context holds them too
    own = content_words(text) - (content_words(subject.question) - context)
    if len(context) < MIN_CONTEXT_WORDS or not own:
        return None  # too little to judge by
    shared = own & context
    if not shared or (len(own) >= 3 and len(shared) / len(own) < MIN_GROUNDED):
        return (f"about nothing in its context ({len(shared)} of its {len(own)} content words "
                "occur there)")
    return None


def degenerate(text: str, subject: Subject | None = None) -> str | None:
    """Why the free text ``text`` is no answer, or None: repeated lines or near-copies,
    one phrase looping, the question echoed back, or nothing in common with ``subject``'s
    context. Never raises."""
    subject = subject or Subject()
    return (repeated_lines(text) or repeated_ngram(text)
            or echoed_question(text, subject.question) or ungrounded(text, subject))
