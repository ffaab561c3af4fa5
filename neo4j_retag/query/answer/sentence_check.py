"""The query side's act on the answer sentence check (``checks.copies``): the misattributed
sentences dropped from an answer, each kept in the trace, and the no-answer when none is left
(ANSWER_SENTENCE_CHECK; global search's and ReTAG's reduce, the one-call answer)."""

from __future__ import annotations

from collections.abc import Sequence

from ...checks.copies import drop_misattributed, report_sources
from ...config import Settings
from ...model import ReportRow, Trace
from ..common import no_answer_for


def check_sentences(text: str, question: str, reports: Sequence[ReportRow], settings: Settings,
                    trace: Trace, more: Sequence[tuple[str, str, str]] = ()) -> str:
    """``text``, the answer to ``question``, without its misattributed sentences
    (``checks.copies.drop_misattributed`` against ``reports`` as the call read them, and
    ``more`` sources: (label, title, text) of the text units it read; ANSWER_SENTENCE_CHECK),
    each dropped one in ``trace.sentences_dropped`` and a note. When every sentence is
    dropped the answer is the no-answer (``common.no_answer_for``): a text made only of copies
    about the wrong subject is not passed off as an answer."""
    if not settings.query.sentence_check or not text.strip():
        return text
    kept, dropped = drop_misattributed(text, [*report_sources(reports), *more], question)
    if not dropped:
        return text
    trace.sentences_dropped += [f"{d.sentence} -- {d.reason}" for d in dropped]
    if not kept.strip():
        return no_answer_for(settings, trace, f"every sentence of the answer ({len(dropped)}) "
                             "copies a report sentence about another subject or quotes words "
                             "no report holds (see sentences_dropped)")
    trace.note(f"{len(dropped)} answer sentence(s) dropped: each copies a report sentence "
               "about another subject or quotes words no report read holds (first: "
               f"{dropped[0].reason[:200]})")
    return kept.strip()
