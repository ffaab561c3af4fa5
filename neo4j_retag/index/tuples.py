"""GraphRAG's tuple format, salvaged: a model trained on GraphRAG's prompts (or one that read
them) may answer ``("entity"<|>NAME<|>TYPE<|>DESCRIPTION)##("relationship"<|>SOURCE<|>TARGET
<|>DESCRIPTION<|>STRENGTH)<|COMPLETE|>`` instead of the JSON we asked for - as a whole reply or
as strings inside our JSON lists. Each tuple becomes the record it stands for; nothing else in
the text is read."""

from __future__ import annotations

import re
from typing import Any

TUPLE = re.compile(r"\(\s*[\"']?(entity|relationship|claim)[\"']?\s*(?:<\|>|\|)(.*?)\)\s*"
                   r"(?=##|\n|<\|COMPLETE\|>|\(\s*[\"']?(?:entity|relationship|claim)|$)",
                   re.I | re.S)
KIND = {"entity": "entities", "relationship": "relationships", "claim": "claims"}


def _fields(body: str) -> list[str]:
    sep = "<|>" if "<|>" in body else "|"
    return [f.strip().strip("\"'").strip() for f in body.split(sep)]


def record(kind: str, fields: list[str]) -> dict[str, Any] | None:
    """The JSON record of one tuple's fields (after its record type), or None when too short."""
    f = fields + [""] * 9
    if kind == "entity" and f[0]:
        return {"name": f[0], "type": f[1] or "unknown", "description": f[2]}
    if kind == "relationship" and f[0] and f[1]:
        try:
            strength = float(f[3]) if f[3] else 5.0
        except ValueError:
            strength = 5.0
        return {"source": f[0], "target": f[1], "description": f[2], "strength": strength}
    if kind == "claim" and f[0]:
        return {"subject": f[0], "object": f[1], "type": f[2], "status": f[3] or "SUSPECTED",
                "start_date": f[4] or None, "end_date": f[5] or None, "description": f[6],
                "source_quote": f[7]}
    return None


def from_tuple(item: Any) -> tuple[str, dict[str, Any]] | None:
    """(list name, record) for a string holding exactly one tuple, else None."""
    if not isinstance(item, str):
        return None
    m = TUPLE.search(item)
    if m is None:
        return None
    rec = record(m.group(1).lower(), _fields(m.group(2)))
    return (KIND[m.group(1).lower()], rec) if rec else None


def from_text(text: str) -> dict[str, list[dict[str, Any]]] | None:
    """Every tuple record of a whole reply by list name, or None when it holds none (or looks
    like JSON: the JSON parser reads that)."""
    if text.lstrip()[:1] in "{[" or "entity" not in text.lower():
        return None
    out: dict[str, list[dict[str, Any]]] = {"entities": [], "relationships": [], "claims": []}
    for m in TUPLE.finditer(text):
        rec = record(m.group(1).lower(), _fields(m.group(2)))
        if rec:
            out[KIND[m.group(1).lower()]].append(rec)
    return out if any(out.values()) else None
