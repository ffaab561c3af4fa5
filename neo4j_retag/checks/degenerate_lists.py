"""Degenerate replies shaped as lists: lines that repeat one another, near-copies of one item,
items that are a label and a bare number, one label leading most items (checks.degenerate's
rules for the shape of a reply; the others read its words).

A list of similar items is an answer ("- Berth 4: 4.50 EUR per metre" then "- Berth 5: ..."):
an item that adds a number or a name of its own is the next item, not a copy.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter

from ..citations import MARKER
from ..text import TERM
from .language import ASKS_FIGURES
from .verdict import Verdict

MIN_DISTINCT_LINES = 0.6  # share of distinct normalised lines below which text repeats itself
NEAR_COPY = 0.8  # difflib ratio above which two lines are the same line with tiny variations
NEAR_COPY_SHARE = 0.5  # share of lines that are near-copies of an earlier line
REPEATED_LABEL_SHARE = 0.5  # share of list items led by one label of 2 or more words
_TOKEN = TERM  # words and numbers: list items differ by numbers
_LIST_MARK = re.compile(r"^\s*(?:[-*•>#]+|\(?\d+[.)]|[a-z][.)])\s*", re.I)
# a list item that is a label and a bare number ("Importance Score: 95,"): no theme, no fact
_EMPTY_ITEM = re.compile(r"^[^:\d\n]{1,40}:\s*[\d.,%]+\W*$")
# "5. The Library's Budget - 7 billion pounds in 2019": an item's label and its value
_LABEL = re.compile(r"^(.{3,60}?)(?:\s*:|\s+[-–—])\s+\S")


def _norm_line(line: str) -> str:
    text = MARKER.sub(" ", line)
    text = _LIST_MARK.sub("", text)
    return " ".join(_TOKEN.findall(text.casefold()))


def _news(line: str, earlier: str) -> bool:
    """Whether ``line`` tells something ``earlier`` does not: a number or a name of its own
    ("Berth 5: 4.20 EUR" after "Berth 4: 4.50 EUR" is the next item, not a copy)."""
    before = set(_TOKEN.findall(earlier.casefold()))
    own = _TOKEN.findall(_LIST_MARK.sub("", MARKER.sub(" ", line)))
    return any(t.casefold() not in before and (t[0].isdigit() or t[0].isupper())
               for t in own[1:] + own[:1] if t)


def repeated_lines(text: str) -> Verdict | None:
    """Whether ``text``'s lines repeat one another: fewer than 60 % of its (5 or more)
    normalised lines distinct (numbers kept), or half of its (4 or more) lines near-copies
    of an earlier one that add no number or name of their own (one list item with tiny
    variations, not a list of similar items)."""
    raw = [ln for ln in text.splitlines() if _norm_line(ln)]
    lines = [_norm_line(ln) for ln in raw]
    distinct = len(set(lines))
    if len(lines) >= 5 and distinct / len(lines) < MIN_DISTINCT_LINES:
        return Verdict("repeated_lines", f"{len(lines) - distinct} of its {len(lines)} lines "
                       "repeat another line", {"lines": len(lines), "distinct": distinct,
                                               "threshold": MIN_DISTINCT_LINES})
    if len(lines) >= 4:
        copies = sum(
            any(difflib.SequenceMatcher(None, line, lines[j]).ratio() >= NEAR_COPY
                and not _news(raw[i], raw[j]) for j in range(i))
            for i, line in enumerate(lines) if i)
        if copies / len(lines) >= NEAR_COPY_SHARE:
            return Verdict("near_copies", f"{copies} of its {len(lines)} lines are near-copies "
                           "of an earlier line", {"lines": len(lines), "near_copies": copies,
                                                  "threshold": NEAR_COPY_SHARE})
    return None


def _items(text: str) -> tuple[list[str], list[int], list[int]]:
    """``text``'s non-empty lines, the indexes of its list items, and of those the items
    that are headings: with text under them (a line that is no item, or one indented
    deeper)."""
    raw = [ln for ln in text.splitlines() if ln.strip()]
    items = [i for i, ln in enumerate(raw) if (m := _LIST_MARK.match(ln)) and m.group().strip()]

    def indent(line: str) -> int:
        return len(line) - len(line.lstrip())

    headings = [i for i in items if i + 1 < len(raw)
                and (i + 1 not in items or indent(raw[i + 1]) > indent(raw[i]))]
    return raw, items, headings


def _body(line: str) -> str:
    return _LIST_MARK.sub("", MARKER.sub(" ", line)).strip()


def empty_items(text: str, question: str) -> Verdict | None:
    """Whether half or more of ``text``'s (3 or more) list items are a label and a bare
    number ("Importance Score: 95", "Lounge: 80") where the question asks for no figure; an
    item with text under it is a heading."""
    raw, items, headings = _items(text)
    if len(items) < 3 or ASKS_FIGURES.search(question):
        return None
    empty = sum(bool(_EMPTY_ITEM.match(_body(raw[i]))) and i not in headings for i in items)
    if empty / len(items) >= 0.5:
        return Verdict("empty_items", f"{empty} of its {len(items)} list items are a label and "
                       "a number, no answer", {"items": len(items), "empty": empty,
                                               "threshold": 0.5})
    return None


def repeated_labels(text: str) -> Verdict | None:
    """Whether half or more of ``text``'s (4 or more) "label - value" list items have one and
    the same label of two or more words ("The Library's Budget - N billion pounds in 20NN"
    looping on its numbers); items with labels of their own ("Berth 4: ...", "Berth 5: ..."),
    one-word labels ("Theme: ...") and headings over text of their own are a list."""
    raw, items, headings = _items(text)
    labels = [m.group(1).casefold().strip("*_ ") for i in items if i not in headings
              and (m := _LABEL.match(_body(raw[i])))]
    if len(items) < 4 or not labels:
        return None
    label, n = Counter(labels).most_common(1)[0]
    if len(TERM.findall(label)) >= 2 and n >= 3 and n / len(items) >= REPEATED_LABEL_SHARE:
        return Verdict("repeated_labels", f"{n} of its {len(items)} list items are led by the "
                       f"same label {label!r}", {"items": len(items), "same_label": n,
                                                 "threshold": REPEATED_LABEL_SHARE})
    return None
