"""JSON modes and schemas for structured output: the response_format forms, their fallback
order, and schemas bounded for grammar-constrained decoding."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, ValidationError

from ..model import JSON

FALLBACK = {"json_schema": "json_object", "json_object": "off"}
# every string of a structured reply is cut here whatever the schema sent (a looping model's
# 3 MB entity description would be stored with every mention of it)
MAX_FIELD_CHARS = 20_000


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
    """The model's JSON schema as strict providers take it: every object closed
    (``additionalProperties: false``) with every property required."""
    return strict(model.model_json_schema())


def strict(schema: Any) -> Any:
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict(v) for k, v in schema.items()}
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def _fits(value: Any, schema: JSON) -> bool:
    kind = "object" if "$ref" in schema else schema.get("type")
    return {"object": dict, "array": list, "string": str}.get(kind) is type(value)


class Shape(ValueError):
    """A structured reply of the wrong shape: what is wrong, where."""


def conform(value: Any, schema: JSON, cut: list[str], where: str = "",
            defs: JSON | None = None, strings: bool = True) -> Any:
    """``value`` held to ``schema`` on our side (servers accept a schema without enforcing
    it): an object with a field the schema does not name in place of one it does (a renamed
    field: ``kind`` for ``type``, ``result`` for ``entities``) is the wrong shape (Shape); an
    extra field beside all the named ones is dropped (``extra_field``); arrays longer than
    ``maxItems`` and strings longer than ``maxLength`` (or MAX_FIELD_CHARS) are cut; each
    change is listed in ``cut`` (``extra_field``, ``over_items``, ``over_length``). Anything
    else is left to the model's validation. ``strings=False`` leaves strings whole, for a
    model that cuts and counts them itself (``OWN_BOUNDS``)."""
    defs = schema.get("$defs", {}) if defs is None else defs
    if "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    for alt in schema.get("anyOf", []):  # Optional[...]: the branch that fits the value
        if isinstance(value, dict | list | str) and _fits(value, alt):
            return conform(value, alt, cut, where, defs, strings)
    if isinstance(value, dict) and isinstance(props := schema.get("properties"), dict):
        extra = [k for k in value if k not in props]
        if extra and not set(props) <= set(value):
            raise Shape(f"{where or 'the reply'}: unexpected field {extra[0]!r} (the schema has "
                        f"{', '.join(props)})")
        cut += ["extra_field"] * len(extra)
        return {k: conform(v, props[k], cut, f"{where}.{k}".lstrip("."), defs, strings)
                for k, v in value.items() if k in props}
    if isinstance(value, list) and schema.get("type") == "array":
        cap = schema.get("maxItems")
        if cap is not None and len(value) > cap:
            cut.append("over_items")
            value = value[:cap]
        items = schema.get("items", {})
        return [conform(v, items, cut, f"{where}[{i}]", defs, strings)
                for i, v in enumerate(value)]
    if isinstance(value, str) and strings:
        cap = min(schema.get("maxLength") or MAX_FIELD_CHARS, MAX_FIELD_CHARS)
        if len(value) > cap:
            cut.append("over_length")
            return value[:cap]
    return value


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
