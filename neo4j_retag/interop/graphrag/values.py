"""Coercing the cell values of GraphRAG's parquet tables.

pandas writes NaN for missing numbers, lists may be numpy-like, and JSON may come as text; every
helper maps an unusable value to None (or an empty list / dict) rather than raising.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from .tables import Row


def _absent(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def as_str(v: Any) -> str | None:
    return None if _absent(v) else str(v)


def as_float(v: Any) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def as_int(v: Any) -> int | None:
    f = as_float(v)
    return None if f is None else int(f)


def as_list(v: Any) -> list[Any]:
    if _absent(v):
        return []
    if isinstance(v, str):
        if v.startswith("["):
            try:
                return list(json.loads(v))
            except json.JSONDecodeError:
                pass
        return [v]
    return [x for x in v if x is not None]


def as_json(v: Any) -> Any:
    """A JSON string parsed (kept as is if it is not JSON); any other value as is."""
    if isinstance(v, str):
        try:
            return json.loads(v)
        except json.JSONDecodeError:
            return v
    return v


def as_findings(v: Any) -> list[dict[str, str]]:
    out = []
    for f in as_list(as_json(v)):
        f = as_json(f)
        if isinstance(f, dict):
            out.append({"summary": str(f.get("summary") or ""),
                        "explanation": str(f.get("explanation") or "")})
        elif f:
            out.append({"summary": str(f), "explanation": ""})
    return out


def as_metadata(v: Any) -> Row:
    v = as_json(v)
    if not isinstance(v, dict):
        return {}
    return {str(k): x for k, x in v.items() if x is not None}


def as_date(v: Any) -> tuple[str | None, datetime | None]:
    """GraphRAG's creation_date (string or timestamp) -> (text kept as is, parsed datetime)."""
    if isinstance(v, datetime):
        return v.isoformat(), v
    text = as_str(v)
    if not text:
        return None, None
    try:
        return text, datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text, None


def set_props(**kv: Any) -> Row:
    """Properties to SET: None dropped, so a second import never erases anything."""
    return {k: v for k, v in kv.items() if v is not None}
