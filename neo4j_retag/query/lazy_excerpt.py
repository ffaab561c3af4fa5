"""What a relevance test reads of a text unit: the whole unit when it fits the test's budget
(``LAZY_TEST_TOKENS``), else the sentences that match the question best (BM25 over the unit's
sentences against the question and its sub-queries), in the unit's order, up to the budget,
with " … " where sentences were left out. A short prompt is most of a test's cost on a local
model (its prompt tokens are evaluated one batch at a time), and whether a passage is relevant
shows in its best sentences."""

from __future__ import annotations

from ..checks.sentences import split
from ..tokens import count, truncate
from .common import bm25_order

GAP = " … "


def excerpt(text: str, query: str, budget: int, enc: str) -> str:
    """``text``, or its sentences best matching ``query`` within ``budget`` tokens (0: the
    whole text)."""
    if budget <= 0 or count(text, enc) <= budget:
        return text
    sentences = split(text)
    if len(sentences) < 2:
        return truncate(text, budget, enc)
    keep: list[int] = []
    used = 0
    for i in bm25_order(query, sentences):
        n = count(sentences[i], enc) + 1
        if used + n <= budget:  # a shorter sentence further down may still fit
            keep.append(i)
            used += n
    if not keep:  # no sentence fits alone: the budget's worth of the best one
        return truncate(sentences[bm25_order(query, sentences)[0]], budget, enc)
    keep.sort()
    parts = [sentences[keep[0]]]
    for a, b in zip(keep, keep[1:], strict=False):
        parts.append((" " if b == a + 1 else GAP) + sentences[b])
    return "".join(parts)
