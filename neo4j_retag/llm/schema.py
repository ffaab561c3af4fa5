"""JSON modes and schemas for structured output: the response_format forms, their fallback
order, and schemas bounded for grammar-constrained decoding."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, ValidationError

from ..model import JSON

FALLBACK = {"json_schema": "json_object", "json_object": "off"}


def first_error(err: ValidationError) -> str:
    e = err.errors()[0]
    return f"{'.'.join(str(x) for x in e['loc']) or 'value'}: {e['msg']}"


def response_format(mode: str, name: str, schema: JSON) -> JSON | None:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


@functools.lru_cache(maxsize=128)
def schema_of(model: type[BaseModel]) -> JSON:
    return model.model_json_schema()


@functools.lru_cache(maxsize=128)
def bounded(model: type[BaseModel], max_items: int, max_chars: int) -> JSON:
    return bound_schema(schema_of(model), max_items, max_chars)


def bound_schema(schema: Any, max_items: int, max_chars: int) -> Any:
    """A copy of ``schema`` for grammar-constrained output: maxItems / maxLength on every
    array / string that lacks one, and every property required (a small model under a grammar
    otherwise answers ``{}``; the pydantic defaults still cover endpoints that omit fields)."""
    if isinstance(schema, list):
        return [bound_schema(s, max_items, max_chars) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bound_schema(v, max_items, max_chars) for k, v in schema.items()}
    if out.get("type") == "array":
        out.setdefault("maxItems", max_items)
    if out.get("type") == "string" and "enum" not in out:
        out.setdefault("maxLength", max_chars)
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        out["required"] = list(out["properties"])
    return out
