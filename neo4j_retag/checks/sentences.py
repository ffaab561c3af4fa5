"""A document cut into its sentences, each with its character span: the unit of evidence. Every
entity, relationship and claim of the index rests on sentences of the source, and quoted
answers quote them, so a sentence must be whole (never cut where a text unit ends) and must
keep its place (its page, slide or heading comes from the span).

The rules, in any language: a paragraph (text between blank lines) is split at a full stop,
question or exclamation mark followed by a space and a letter that is not lower case (or at
the CJK marks 。！？ alone); not after an abbreviation of ``language.ABBREVIATIONS`` or a
single initial ("J. Leech"). A line that starts a list item, a heading, a table row or a
speaker's turn starts a sentence; a hard-wrapped line does not. A run of text over
``MAX_CHARS`` without such a stop (a table, a list written as one line) is cut at its last
";" or "," or space before the limit, so no evidence is a page long.

An answer's line is cut more simply (:func:`answer_sentences`: at a stop and a space), its
citation markers kept with the sentence they follow.
"""

from __future__ import annotations

import re

import regex

from ..citations import MARKER
from .language import ABBREVIATIONS

MAX_CHARS = 600  # a sentence longer than this is cut (module docstring)
Span = tuple[int, int]

# a sentence's end: its marks, closing quotes and brackets; the CJK marks need no space after
_END = regex.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s)|[。！？]+[」』”’)]*")
# a line that starts a sentence of its own: a list item, a heading, a table row, a turn
_STARTS = regex.compile(r"[ \t]*(?:[-*•+]\s|\d{1,3}[.)]\s|#{1,6}\s|\||\*\*[^*\n]{1,60}:\*\*"
                        r"|>\s)")
_WORD_BEFORE = regex.compile(r"([\p{L}.]+)\.$")


def _lines(text: str) -> list[tuple[int, int]]:
    out, at = [], 0
    for line in text.split("\n"):
        out.append((at, at + len(line)))
        at += len(line) + 1
    return out


def _blocks(text: str) -> list[Span]:
    """Paragraphs and the lines that start a sentence of their own, as spans."""
    blocks: list[Span] = []
    start: int | None = None
    prev_end = 0
    first = True
    for a, b in _lines(text):
        line = text[a:b]
        if not line.strip():
            if start is not None:
                blocks.append((start, prev_end))
            start, first = None, True
            continue
        if start is not None and (_STARTS.match(line)
                                  or _heading(text[start:prev_end], first, line)):
            blocks.append((start, prev_end))
            start = None
        if start is None:
            start, first = a, True
        else:
            first = False
        prev_end = b
    if start is not None:
        blocks.append((start, prev_end))
    return blocks


def _heading(block: str, only_line: bool, nxt: str) -> bool:
    """A block of one short line without a closing mark, followed by a line that does not go
    on in lower case, is a heading or a title: the line after it starts a sentence."""
    line, after = block.strip(), nxt.strip()
    return (only_line and 0 < len(line) <= 60 and line[-1] not in ".!?:;,…"
            and not after[:1].islower())


def _abbreviation(text: str, start: int, dot: int) -> bool:
    # the word before the dot is near it: searching from the sentence's start made a long
    # run without a sentence end quadratic
    m = _WORD_BEFORE.search(text, max(start, dot - 64), dot + 1)
    if not m:
        return False
    word = m.group(1).casefold()
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _trim(text: str, a: int, b: int) -> Span | None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if b > a else None


def _cut(text: str, span: Span) -> list[Span]:
    """``span`` in pieces of at most MAX_CHARS, each cut at its last ';', ',' or space."""
    out = []
    a, b = span
    while b - a > MAX_CHARS:
        piece = text[a:a + MAX_CHARS]
        at = max(piece.rfind("; "), piece.rfind(", "))
        at = at + 1 if at > MAX_CHARS // 3 else piece.rfind(" ")
        at = at if at > 0 else MAX_CHARS
        if (t := _trim(text, a, a + at)) is not None:
            out.append(t)
        a += at
    if (t := _trim(text, a, b)) is not None:
        out.append(t)
    return out


def sentence_spans(text: str) -> list[Span]:
    """The sentences of ``text`` as (start, end) character spans, in order (module
    docstring); whitespace between them belongs to none."""
    out: list[Span] = []
    for b0, b1 in _blocks(text):
        start = b0
        for m in _END.finditer(text, b0, b1):
            nxt = m.end()
            while nxt < b1 and text[nxt].isspace():
                nxt += 1
            if nxt >= b1:
                break
            if text[m.start()] == "." and _abbreviation(text, start, m.start()):
                continue
            if text[nxt].islower():  # "e.g. the", "... and so on": not an end
                continue
            if (t := _trim(text, start, m.end())) is not None:
                out += _cut(text, t)
            start = nxt
        if (t := _trim(text, start, b1)) is not None:
            out += _cut(text, t)
    return out


def sentence_text(text: str, span: Span) -> str:
    """The sentence at ``span`` as one line (its line breaks and runs of spaces as one)."""
    return " ".join(text[span[0]:span[1]].split())


def split(text: str) -> list[str]:
    """The sentences of ``text``, each as one line."""
    return [sentence_text(text, s) for s in sentence_spans(text)]


_ANSWER_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_LEAD_MARKER = re.compile(rf"^(?:\s*(?:{MARKER.pattern}))+\s*", re.I)


def answer_sentences(line: str) -> list[str]:
    """``line``'s sentences (an answer's), a marker that opens one ("... talent. [Data:
    Reports (13)] His ...") kept with the sentence before it, whose citation it is."""
    out: list[str] = []
    for part in _ANSWER_SENTENCE.split(line):
        lead = _LEAD_MARKER.match(part)
        if lead and out:
            out[-1] += " " + lead.group(0).strip()
            part = part[lead.end():]
        if part.strip():
            out.append(part)
    return out
