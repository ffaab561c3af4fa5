"""Markdown's heading path at each point of its text (ATX headings, outside code fences),
and plain text."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .base import Part

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def heading_spans(text: str) -> list[tuple[int, str]]:
    """(character offset, heading path ``"Budget > Staff"``) where each heading starts."""
    spans: list[tuple[int, str]] = []
    stack: list[tuple[int, str]] = []
    fenced, at = False, 0
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := _ATX.match(line)):
            level = len(m.group(1))
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, m.group(2).strip())]
            spans.append((at, " > ".join(t for _, t in stack)))
        at += len(line) + 1
    return spans


def read_markdown(text: str) -> Iterator[Part]:
    """The text in consecutive pieces, one per heading section, each with its heading path
    (the text before the first heading has none)."""
    at, heading = 0, None
    for start, path in heading_spans(text):
        if start > at:
            yield Part(text[at:start], heading=heading)
        at, heading = start, path
    yield Part(text[at:], heading=heading)


def read_plain(text: str) -> Iterator[Part]:
    """A plain text file: one piece, no place inside it (a ``#`` line is not a heading)."""
    yield Part(text)
