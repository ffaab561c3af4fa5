"""Citations in answer texts, checked against the ids that were really in the context: the
markers are parsed by :mod:`neo4j_retag.citations` (every GraphRAG-style variant); invalid ids
are removed from the text and listed in ``trace.invalid_citations`` as ``"Kind id"``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..checks.degenerate import content_words
from ..checks.sentences import answer_sentences
from ..citations import MARKER, check, parse
from ..db import Graph
from ..model import Answer, Citation, Trace

MIN_SHARED = 2  # content words a sentence must share with a support to be attributed to it


def report_ids(text: str) -> list[int]:
    """Every integer report id the markers of ``text`` cite, in order (unchecked)."""
    return [i for k, i in parse(text) if k == "Reports" and isinstance(i, int)]


def cited_sources(text: str, valid: Mapping[str, Citation], trace: Trace,
                  ) -> tuple[str, list[Citation]]:
    """``text`` with only valid ids left in its markers, and the citations of ``valid`` (keyed
    ``"Reports:<i>"`` / ``"Sources:<i>"``) it cites, in order of first mention."""
    by_kind: dict[str, set[int | str]] = {}
    for key in valid:
        kind, _, i = key.partition(":")
        by_kind.setdefault(kind, set()).add(int(i) if i.isdigit() else i)
    checked = check(text, by_kind)
    trace.invalid_citations += checked.invalid
    keys = [f"{k}:{i}" for k, i in checked.cited]
    return checked.text.strip(), [valid[k] for k in dict.fromkeys(keys)]


def attribute(text: str, supports: Sequence[tuple[str, Sequence[int | str]]],
              kind: str = "Reports") -> tuple[str, int]:
    """``text`` with a ``[Data: <kind> (ids)]`` marker after each sentence that cites nothing
    and shares 2 or more content words with one of ``supports`` (its text, the ids behind it:
    a map point and its reports, a claim and its text units): the ids of the support sharing
    most (5 at most). For a model that writes no marker (Qwen2.5-Coder-1.5B cited
    in few answers), so that a reader still sees which source each sentence rests on; the
    caller notes it and marks those citations ``attributed``. Returns the text and the number
    of sentences attributed."""
    words = [(content_words(t), list(ids)) for t, ids in supports if ids]
    attributed = 0
    lines = []
    for line in text.split("\n"):
        out = []
        for sentence in answer_sentences(line):
            own = content_words(MARKER.sub(" ", sentence))
            best = max(words, key=lambda w: len(own & w[0]), default=None)
            if MARKER.search(sentence) or best is None or len(own & best[0]) < MIN_SHARED:
                out.append(sentence)
                continue
            ids = ", ".join(str(i) for i in dict.fromkeys(best[1][:5]))
            out.append(f"{sentence.rstrip()} [Data: {kind} ({ids})]")
            attributed += 1
        lines.append(" ".join(out))
    return "\n".join(lines), attributed


def cite_or_attribute(text: str, valid: Mapping[str, Citation],
                      supports: Sequence[tuple[str, Sequence[int | str]]], trace: Trace, *,
                      kind: str = "Reports", by: str = "the report",
                      ) -> tuple[str, list[Citation]]:
    """The citations an answer text writes (:func:`cited_sources`); when it writes none (and
    the trace holds no no-answer), each sentence :func:`attribute`-d to the support it shares
    most words with, the note saying so (``by``: what each sentence was attributed to), those
    citations marked ``attributed``. Returns the text (markers added) and the citations."""
    text, cited = cited_sources(text, valid, trace)
    if cited or not supports or trace.no_answer is not None:
        return text, cited
    text, n = attribute(text, supports, kind)
    text, cited = cited_sources(text, valid, trace)
    if n:
        what = "report" if kind == "Reports" else "text unit"
        trace.note(f"the answer cited no {what}: {n} of its sentences were attributed to "
                   f"{by} each shares most words with")
    return text, [c.model_copy(update={"attributed": True}) for c in cited]


def locate(graph: Graph, answer: Answer) -> Answer:
    """``answer`` with each text-unit citation and source given its ``location`` (``report.pdf
    p. 7``, ``deck.pptx slide 3``, ``notes.md § Budget``; its document's title for a text unit
    indexed before locations were kept). One read; the answer itself is returned."""
    cites = [c for c in [*answer.citations, *answer.sources] if c.kind == "text_unit"]
    if not cites:
        return answer
    found = {r["id"]: r["location"] for r in graph.run(
        "query/text_unit_locations", ids=list({str(c.id) for c in cites}))}
    for c in cites:
        c.location = found.get(str(c.id)) or c.location
    return answer
