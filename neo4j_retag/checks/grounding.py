"""Community reports that cannot invent: every finding a model wrote is held to the context
it was written from before the report is stored (general and topic reports alike).

A small model writes findings whose facts are in no record it was given (measured on the
Christmas Carol topic reports of Qwen2.5-Coder-1.5B: "Jacob Marley was a character from Robinson
Crusoe"); map-reduce later reads them as data. A finding is supported when

- at least ``MIN_FINDING_GROUNDED`` of its content words (stems, function words left out) occur
  in the context, and
- every name it gives (a capitalised word inside a sentence) occurs in the context.

Unsupported findings are dropped and counted (``CommunityReport.grounded``;
``ReportCounts.unsupported_findings``, the community's ``unsupported_findings`` property for
Browser, `stats`); no call is paid for them.
Calibrated by ``benchmarks/quality/report_grounding.py`` on reports written by GPT-4o from the same
kind of context: the share of their findings this check would drop.
"""

from __future__ import annotations

import re

from ..citations import MARKER
from .degenerate import content_words

MIN_FINDING_GROUNDED = 0.2  # share of a finding's content words its context must hold
MIN_FINDING_WORDS = 4  # a finding with fewer content words is not judged by their share
_TOKEN = re.compile(r"[^\W\d_][\w-]*")
# quoted spans (a quote of the text, a title) are not names the finding gives
_QUOTED = re.compile(r"[\"“”‘][^\"“”‘’\n]{0,200}[\"“”’]")
SENTENCE = re.compile(r"(?<=[.!?:;])\s+|\n+")  # clauses too: a finding's, a report's


def names(text: str) -> set[str]:
    """The capitalised words of ``text`` that are not the first word of a sentence (names of
    people, places, organisations), casefolded; quoted spans left out."""
    out: set[str] = set()
    for sentence in SENTENCE.split(_QUOTED.sub(" ", MARKER.sub(" ", text))):
        for word in _TOKEN.findall(sentence)[1:]:
            # a capitalised function word ("However" after a quote) is no name
            if word[0].isupper() and content_words(word):
                out.add(word.casefold())
    return out


def finding_support(text: str, context_words: set[str], context_lower: str,
                    names_in: str = "") -> tuple[float, list[str]]:
    """The share of ``text``'s content words in the context (1.0 for a finding too short to
    judge) and the names its sentences give that the context does not hold (``names_in``:
    a finding's explanation; its summary is a title, capitalised throughout)."""
    words = content_words(MARKER.sub(" ", text))
    share = (len(words & context_words) / len(words)) if len(words) >= MIN_FINDING_WORDS else 1.0
    # a plural or possessive of a name the context holds ("the Cratchits") is that name
    missing = sorted(n for n in names(names_in)
                     if n not in context_lower and n.rstrip("s") not in context_lower)
    return share, missing


class FindingCheck:
    """The check of findings against one ``context`` (its content words and text read once):
    called with a finding's summary and explanation, it returns why the finding is unsupported
    (the share of its words in the context, the names the context lacks), or None."""

    def __init__(self, context: str, min_share: float = MIN_FINDING_GROUNDED) -> None:
        self.words = content_words(context)
        self.lower = context.casefold()
        self.min_share = min_share

    def __call__(self, summary: str, explanation: str) -> str | None:
        share, missing = finding_support(f"{summary}\n{explanation}", self.words, self.lower,
                                         explanation)
        if share >= self.min_share and not missing:
            return None
        why = f"{share:.0%} of its words in the context"
        return why + (f"; names not in it: {', '.join(missing[:5])}" if missing else "")
