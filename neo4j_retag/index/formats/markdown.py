"""Markdown's heading path at each point of its text (ATX headings, outside code fences)."""

from __future__ import annotations

import re

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
