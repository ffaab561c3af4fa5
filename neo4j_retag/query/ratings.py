"""A rating as models write it, read onto its scale: a number (``4``, ``"4 - relevant"``), a
fraction of any scale (``"2/5"``, ``"8/10"``, ``"3 out of 5"``), a percentage (``"60%"``),
a number word (``"three"``) or a word of degree (``"high"``, ``"not relevant"``). What none
of these reads is an error (the reply is invalid: asked again with the error, then the item
fails and is counted), never a silent 0. A number outside the scale is clamped and reported
(``Read.outside``) for the caller to count."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from pydantic import BeforeValidator

# words of degree, as a share of the scale (GraphRAG's 0-5: 0 not relevant, 1 potentially,
# 3 relevant, 5 answers it); longest first, so "not relevant" is not read as "relevant"
DEGREE = {
    "not relevant": 0.0, "not at all": 0.0, "irrelevant": 0.0, "unrelated": 0.0, "none": 0.0,
    "no": 0.0, "false": 0.0, "very low": 0.1, "low": 0.2, "slightly relevant": 0.2,
    "potentially relevant": 0.2, "possibly relevant": 0.2, "somewhat relevant": 0.4,
    "partially relevant": 0.4, "medium": 0.5, "moderate": 0.5, "moderately relevant": 0.5,
    "relevant": 0.6, "yes": 0.6, "true": 0.6, "high": 0.8, "highly relevant": 0.8,
    "very relevant": 0.8, "very high": 1.0, "extremely relevant": 1.0, "maximum": 1.0,
    "directly answers": 1.0, "fully relevant": 1.0,
}
NUMBER_WORDS = {w: float(i) for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])}
_NUMBER = r"[-+]?\d+(?:[.,]\d+)?"
_RATED = rf"({_NUMBER})\s*(?:(/|out of|of)\s*({_NUMBER})|(%|percent))?"
_LEAD = re.compile(rf"^\s*{_RATED}", re.I)
_ANY = re.compile(rf"(?<![\w.]){_RATED}", re.I)  # "Rating: 4/5", "about 3" (one number only)


class Read(NamedTuple):
    """A rating on its scale, and the number as written when it lay outside (clamped)."""

    value: float
    outside: float | None = None


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def read_rating(value: Any, lo: float, hi: float) -> Read:
    """``value`` as a rating on [``lo``, ``hi``]. Raises ValueError (naming the scale) when
    it reads as no rating; an out-of-range number is clamped, with ``outside`` set."""
    if isinstance(value, bool):  # as the words "true" / "false"
        return Read(lo + DEGREE[str(value).lower()] * (hi - lo))
    found = _ANY.findall(value) if isinstance(value, str) and len(value) <= 40 else []
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and (m := _LEAD.match(value) or (
            _ANY.search(value) if len(found) == 1 else None)):
        number = _num(m.group(1))
        if m.group(3):  # a fraction of its own scale: "2/5", "8/10", "3 out of 5"
            whole = _num(m.group(3))
            if whole <= 0:
                raise ValueError(f"{value!r} is no rating on {lo:g}-{hi:g}")
            number = lo + number * (hi - lo) / whole if whole != hi else number
        elif m.group(4):
            number = lo + number * (hi - lo) / 100
    elif isinstance(value, str):
        words = " ".join(re.sub(r"[^\w\s]", " ", value.casefold()).split())
        for word in sorted(DEGREE, key=len, reverse=True):
            if words == word or words.startswith(word + " "):
                return Read(lo + DEGREE[word] * (hi - lo))
        if (first := words.split(" ", 1)[0]) in NUMBER_WORDS:
            number = NUMBER_WORDS[first]
        else:
            raise ValueError(f"{value[:40]!r} is no rating on {lo:g}-{hi:g} (a number, a "
                             "fraction, a percentage or a word such as high)")
    else:
        raise ValueError(f"{type(value).__name__} is no rating on {lo:g}-{hi:g}")
    if lo <= number <= hi:
        return Read(number)
    return Read(min(hi, max(lo, number)), number)


def rated(lo: float, hi: float) -> BeforeValidator:
    """A score field read as models write it (``Annotated[float, rated(0, 100)]``): the forms
    of ``read_rating``, out-of-range values clamped; anything else invalid (the reply is asked
    again, then its item fails), never a silent 0."""
    return BeforeValidator(lambda v: read_rating(v, lo, hi).value)
