"""GraphRAG's tuple format, salvaged: a model trained on GraphRAG's prompts (or one that read
them) may answer ``("entity"<|>NAME<|>TYPE<|>DESCRIPTION)##("relationship"<|>SOURCE<|>TARGET
<|>DESCRIPTION<|>STRENGTH)<|COMPLETE|>`` instead of the JSON we asked for - as a whole reply or
as strings inside our JSON lists. Each tuple becomes the record it stands for; nothing else in
the text is read. A tuple runs to the next one's start, so the format's own separators inside
a field (``<|>``, ``##``, ``<|COMPLETE|>``) are text of that field: only a ``)`` followed by a
record separator (or the end) closes it. A tuple missing its ``)`` ends where the next begins
(read alone, counted); a ``<|>`` inside a description keeps the description whole (counted); a
tuple with fewer fields than its format has (``("entity"<|>NAME<|>TYPE)``) is dropped
(counted)."""

from __future__ import annotations

import re
from typing import Any

START = re.compile(r"\(\s*[\"']?(entity|relationship|claim)[\"']?\s*(?:<\|>|\|)", re.I)
KIND = {"entity": "entities", "relationship": "relationships", "claim": "claims"}
REPAIR = "_repair"  # a record's key naming how it was repaired (counted, then removed)
UNCLOSED = "tuple record without its ')' (kept, read alone)"
JOINED = "tuple description holding the field separator (kept whole)"
DROP = "_drop"  # a record's key naming why it is dropped (counted, never stored)
TOO_FEW = "tuple record with too few fields"
FIELDS = {"entity": 3, "relationship": 4, "claim": 8}  # fields after the record type
# fields a record must have (the strength and a claim's source quote may be missing)
MIN_FIELDS = {"entity": 3, "relationship": 3, "claim": 7}
_SEP = r"##|<\|COMPLETE\|>"
_CLOSE = re.compile(rf"\)\s*(?:{_SEP})")  # a tuple's end: ")" then a record separator


def _fields(body: str) -> list[str]:
    sep = "<|>" if "<|>" in body else "|"
    return [f.strip().strip("\"'").strip() for f in body.split(sep)]


def _fit(kind: str, f: list[str]) -> tuple[list[str], bool]:
    """Fields with the extra ones a separator inside the description made joined back into
    the description; and whether that happened."""
    n = FIELDS[kind]
    if len(f) <= n:
        return f, False
    desc = {"entity": 2, "relationship": 2, "claim": 6}[kind]
    tail = n - desc - 1  # fields after the description (strength; source quote)
    if kind == "relationship":
        try:
            float(f[-1])
        except ValueError:
            tail = 0  # no strength at the end: the extras belong to the description
    end = len(f) - tail
    return [*f[:desc], " <|> ".join(f[desc:end]), *f[end:]], True


def record(kind: str, fields: list[str]) -> dict[str, Any] | None:
    """The JSON record of one tuple's fields (after its record type), or None when it names
    nothing. Fewer fields than MIN_FIELDS: marked ``DROP`` (``TOO_FEW``); a description
    holding the separator is kept whole (marked ``REPAIR``: ``JOINED``)."""
    if len(fields) < MIN_FIELDS[kind]:
        return {DROP: TOO_FEW} if any(fields) else None
    fields, joined = _fit(kind, fields)
    f = fields + [""] * 9
    rec: dict[str, Any] | None = None
    if kind == "entity" and f[0]:
        rec = {"name": f[0], "type": f[1] or "unknown", "description": f[2]}
    elif kind == "relationship" and f[0] and f[1]:
        try:
            strength = float(f[3]) if f[3] else 5.0
        except ValueError:
            strength = 5.0
        rec = {"source": f[0], "target": f[1], "description": f[2], "strength": strength}
    elif kind == "claim" and f[0]:
        rec = {"subject": f[0], "object": f[1], "type": f[2], "status": f[3] or "SUSPECTED",
               "start_date": f[4] or None, "end_date": f[5] or None, "description": f[6],
               "source_quote": f[7]}
    if rec is not None and joined:
        rec[REPAIR] = JOINED
    return rec


def _body(chunk: str) -> tuple[str, bool]:
    """A tuple's fields as one string (what follows its record type, up to the next tuple),
    and whether it was closed: up to its last ``)`` followed by a record separator, else its
    last ``)``; unclosed, up to ``<|COMPLETE|>`` without a trailing ``##``."""
    ends = [m.start() for m in _CLOSE.finditer(chunk)]
    close = ends[-1] if ends else chunk.rfind(")")
    if close >= 0:
        return chunk[:close], True
    chunk = chunk.split("<|COMPLETE|>", 1)[0].rstrip()
    return chunk.removesuffix("##").rstrip(), False


def _tuples(text: str) -> list[tuple[str, str, bool]]:
    """(record type, body, closed) of each tuple: a tuple runs from its opening to the next
    one's, so one missing its ``)`` never takes in the next, and a separator inside a field
    is that field's text."""
    starts = list(START.finditer(text))
    out = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        out.append((m.group(1).lower(), *_body(text[m.end():end])))
    return out


def _record_of(kind: str, body: str, closed: bool) -> dict[str, Any] | None:
    rec = record(kind, _fields(body))
    if rec is not None and not closed and DROP not in rec:
        rec[REPAIR] = UNCLOSED
    return rec


def from_tuple(item: Any) -> tuple[str, dict[str, Any]] | None:
    """(list name, record) for a string holding exactly one tuple, else None."""
    if not isinstance(item, str):
        return None
    found = _tuples(item)
    if not found:
        return None
    kind, body, closed = found[0]
    rec = _record_of(kind, body, closed)
    return (KIND[kind], rec) if rec else None


def from_text(text: str) -> dict[str, list[dict[str, Any]]] | None:
    """Every tuple record of a whole reply by list name, or None when it holds none (or looks
    like JSON: the JSON parser reads that). Records repaired carry ``REPAIR``."""
    if text.lstrip()[:1] in "{[" or not START.search(text):  # a gleaning reply may hold
        return None                                             # relationships only
    out: dict[str, list[dict[str, Any]]] = {"entities": [], "relationships": [], "claims": []}
    for kind, body, closed in _tuples(text):
        if rec := _record_of(kind, body, closed):
            out[KIND[kind]].append(rec)
    return out if any(out.values()) else None
