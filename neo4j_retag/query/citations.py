"""Citations in answer texts, checked against the ids that were really in the context: the
markers are parsed by :mod:`neo4j_retag.citations` (every GraphRAG-style variant); invalid ids
are removed from the text and listed in ``trace.invalid_citations`` as ``"Kind id"``."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ..citations import check, parse
from ..model import Citation, Trace


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
