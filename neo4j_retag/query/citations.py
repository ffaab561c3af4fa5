"""Citations in answer texts: GraphRAG's ``[Data: Reports (2, 7)]`` / ``[Data: Sources (3)]``
markers, checked against the ids that were really in the context."""

from __future__ import annotations

import re

from ..model import Citation, Trace

REPORTS = re.compile(r"\[Data:\s*Reports\s*\(([^)]*)\)\]", re.I)
SOURCES = re.compile(r"\[Data:\s*(Sources|Reports)\s*\(([^)]*)\)\]", re.I)


def report_ids(text: str) -> list[int]:
    """Every integer inside the ``[Data: Reports (...)]`` markers of ``text``, in order."""
    return [int(x) for m in REPORTS.findall(text) for x in re.findall(r"\d+", m)]


def keep_valid_reports(text: str, valid: set[int], trace: Trace) -> tuple[str, list[int]]:
    """``text`` with each marker reduced to its valid report ids (a marker with none removed),
    and the valid ids cited, in order. Invalid ids are listed in ``trace.invalid_citations``."""
    cited: list[int] = []

    def sub(m: re.Match[str]) -> str:
        ok = []
        for tok in re.split(r"[,\s]+", m.group(1).strip()):
            if tok.isdigit() and int(tok) in valid:
                ok.append(int(tok))
            elif tok and tok != "+more":
                trace.invalid_citations.append(tok)
        cited.extend(ok)
        return f"[Data: Reports ({', '.join(map(str, ok))})]" if ok else ""

    return REPORTS.sub(sub, text).strip(), cited


def cited_sources(text: str, valid: dict[str, Citation], trace: Trace) -> list[Citation]:
    """The citations of ``valid`` (keyed ``"reports:<i>"`` / ``"sources:<i>"``) that ``text``
    cites, in order of first mention; unknown ids go to ``trace.invalid_citations``."""
    keys: list[str] = []
    for kind, group in SOURCES.findall(text):
        for tok in re.split(r"[,\s]+", group.strip()):
            key = f"{kind.lower()}:{tok}"
            if key in valid:
                keys.append(key)
            elif tok:
                trace.invalid_citations.append(tok)
    return [valid[k] for k in dict.fromkeys(keys)]
