"""The sentences of a document, as the graph keeps them: the evidence every entity,
relationship and claim rests on (``(:Chunk)-[:HAS_SENTENCE]->(:Sentence)``).

A sentence belongs to its document, not to a text unit: text units are token windows that
overlap and cut sentences in two, so a text unit holds every sentence its span touches, whole
(the one its window starts in the middle of too), and two text units share the sentences of
their overlap. Each sentence keeps its place (``location``: "report.pdf p. 7", a slide, a
heading), so a citation of it can say its page. A text unit loaded before sentences existed
gets its sentences from its own text when it is extracted (``unit_sentences``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..checks.sentences import sentence_spans, sentence_text
from ..model import SourceSentence

Locate = Callable[[int, int], dict[str, object]]


def document_sentences(doc_id: str, text: str, locate: Locate
                       ) -> list[tuple[SourceSentence, int, int]]:
    """The sentences of a document's ``text`` with their spans; ids ``<doc id prefix>-s<n>``,
    each located by ``locate(start, end)`` (``Document.locate``)."""
    out = []
    for i, (a, b) in enumerate(sentence_spans(text)):
        where = locate(a, b)
        page = where.get("page")
        out.append((SourceSentence(id=f"{doc_id[:24]}-s{i:05d}", text=sentence_text(text, (a, b)),
                                   index=i, location=str(where.get("location") or ""),
                                   page=int(page) if isinstance(page, int) else None), a, b))
    return out


def sentences_of_units(sentences: Sequence[tuple[SourceSentence, int, int]],
                       units: Sequence[tuple[int, int]]) -> list[list[str]]:
    """For each text unit span, the ids of the sentences it touches, in order (a sentence
    cut by the unit's edge belongs to it whole)."""
    out = []
    for ua, ub in units:
        out.append([s.id for s, a, b in sentences if a < ub and b > ua])
    return out


def unit_sentences(unit_id: str, text: str, location: str = "",
                   page: int | None = None) -> list[SourceSentence]:
    """Sentences of a text unit that was loaded without them (an index from before sentences
    existed): its own text cut into sentences, ids ``<text unit id>-s<n>``, the unit's place
    as theirs."""
    return [SourceSentence(id=f"{unit_id}-s{i:03d}", text=sentence_text(text, span), index=i,
                           location=location, page=page)
            for i, span in enumerate(sentence_spans(text))]
