"""Citations in answer texts, checked against the ids that were really in the context: the
markers are parsed by :mod:`neo4j_retag.citations` (every GraphRAG-style variant); invalid ids
are removed from the text and listed in ``trace.invalid_citations`` as ``"Kind id"``."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..citations import check, parse
from ..db import Graph
from ..model import Answer, Citation, Trace


def report_ids(text: str) -> list[int]:
    """Every integer report id the markers of ``text`` cite, in order (unchecked)."""
    return [i for k, i in parse(text) if k == "Reports" and isinstance(i, int)]


def keep_valid_reports(text: str, valid: Collection[int], trace: Trace) -> tuple[str, list[int]]:
    """``text`` with each marker reduced to its valid report ids (a marker with none removed,
    the sentence tidied), and the valid ids cited, in order. Any other record type cited is
    invalid here: the reduce step saw reports only."""
    checked = check(text, {"Reports": set(valid)})
    trace.invalid_citations += checked.invalid
    return checked.text.strip(), [int(i) for i in checked.ids("Reports")]


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
