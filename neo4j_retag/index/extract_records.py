"""The JSON an extraction reply must have, and its checks: typed entity, relationship and
claim records (Edge et al. 2024 appendix A), validated one by one so that a bad record is
dropped with a reason while the others of its text unit are kept; claims checked against the
text (``grounded``). No LLM call here: `extract` drives the calls.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from ..keys import MAX_KEY_CHARS, entity_key
from ..model import clamped
from .tuples import REPAIR, from_text, from_tuple


def _coerce_item(v: Any, field: str) -> Any:
    # small models sometimes answer with bare strings instead of objects
    return {field: v} if isinstance(v, str) else v


# a string field that a model may leave null or give as a number
Text = Annotated[str, BeforeValidator(lambda v: "" if v is None else str(v))]


class ExtractedEntity(BaseModel):
    name: str
    type: Text = "unknown"
    description: Text = ""

    @model_validator(mode="before")
    @classmethod
    def _str(cls, v: Any) -> Any:
        return _coerce_item(v, "name")


class ExtractedRelationship(BaseModel):
    source: str
    target: str
    description: Text = ""
    strength: Annotated[float, clamped(1, 10, 5.0)] = Field(5.0, description="1-10")


class ExtractedClaim(BaseModel):
    subject: str
    object: Text = ""
    type: Text = ""
    status: str = "SUSPECTED"
    start_date: str | None = None
    end_date: str | None = None
    description: Text = ""
    source_quote: Text = ""

    @model_validator(mode="before")
    @classmethod
    def _str(cls, v: Any) -> Any:
        return _coerce_item(v, "description")

    @field_validator("status", mode="before")
    @classmethod
    def _status(cls, v: Any) -> str:
        s = str(v or "").upper()
        return s if s in ("TRUE", "FALSE", "SUSPECTED") else "SUSPECTED"


# why a record of an extraction was dropped (the others of its text unit are kept)
NOT_A_RECORD = "not a record"  # prose, a tuple, a number where an object belongs
NO_NAME = "entity without a name"
NO_ENDPOINT = "relationship without a source or target"
NO_SUBJECT = "claim without a subject"
WRONG_FIELDS = "record with wrong field types"
SELF_LOOP = "relationship of an entity to itself"
UNGROUNDED = "claim the text does not support"
# records kept, but changed: counted beside the dropped ones
TUPLE_SALVAGED = "record salvaged from GraphRAG's tuple format (kept)"
NAME_CAPPED = f"entity name over {MAX_KEY_CHARS} characters capped with a hash (kept)"


def _name_like(v: Any) -> bool:
    # a bare string stands for an entity only when it reads as a name, not as prose/tuples
    return isinstance(v, str) and 0 < len(v.split()) <= 8 and not re.search(r"[<>|(){}]|\.\s", v)


def _check(item: Any, kind: str) -> str | None:
    """The reason ``item`` is not a usable record of ``kind``, or None."""
    if kind == "entities" and _name_like(item):
        return None
    if kind == "claims" and isinstance(item, str) and item.strip():
        return None
    if not isinstance(item, dict):
        return NOT_A_RECORD
    if kind == "entities" and not entity_key(str(item.get("name") or "")):
        return NO_NAME
    if kind == "relationships" and not all(
            isinstance(item.get(k), str | int | float) and entity_key(str(item.get(k)))
            for k in ("source", "target")):
        return NO_ENDPOINT
    if kind == "claims" and not entity_key(str(item.get("subject") or "")):
        return NO_SUBJECT
    return None


class GraphExtraction(BaseModel):
    """One extraction reply. Records are validated one by one: a bad record is dropped and
    counted in ``dropped`` by reason; the good ones are kept (never sent in the schema)."""

    entities: list[ExtractedEntity] = []
    relationships: list[ExtractedRelationship] = []
    dropped: SkipJsonSchema[dict[str, int]] = Field(default_factory=dict, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _per_record(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        dropped: dict[str, int] = dict(data.get("dropped") or {})
        models = {"entities": ExtractedEntity, "relationships": ExtractedRelationship,
                  "claims": ExtractedClaim}
        salvaged: dict[str, list[Any]] = {k: [] for k in models}
        for kind in models:  # GraphRAG tuples written as strings in our lists
            items = data.get(kind)
            if isinstance(items, str) and (found := from_text(items)):
                data[kind] = []
                for k, recs in found.items():
                    salvaged[k] += recs
            elif isinstance(items, list):
                rest = []
                for item in items:
                    if (hit := from_tuple(item)) is not None:
                        salvaged[hit[0]].append(hit[1])
                    else:
                        rest.append(item)
                data[kind] = rest
        for kind, recs in salvaged.items():
            if recs and kind in cls.model_fields:
                data[kind] = [*(data.get(kind) or []), *recs]
                dropped[TUPLE_SALVAGED] = dropped.get(TUPLE_SALVAGED, 0) + len(recs)
        for kind, model in models.items():
            if kind not in cls.model_fields or kind not in data:
                continue
            items = data[kind]
            if not isinstance(items, list):  # prose or an object where a list belongs
                if items not in (None, "", {}):
                    dropped[NOT_A_RECORD] = dropped.get(NOT_A_RECORD, 0) + 1
                items = []
            keep = []
            for item in items:
                if isinstance(item, dict) and REPAIR in item:  # a tuple repaired: counted
                    how = item[REPAIR]
                    item = {k: v for k, v in item.items() if k != REPAIR}
                    dropped[how] = dropped.get(how, 0) + 1
                reason = _check(item, kind)
                if reason is None:
                    try:
                        model.model_validate(item)
                    except ValidationError:
                        reason = WRONG_FIELDS
                if reason is None:
                    keep.append(item)
                else:
                    dropped[reason] = dropped.get(reason, 0) + 1
            data[kind] = keep
        data["dropped"] = dropped
        return data

    @classmethod
    def from_text(cls, text: str) -> dict[str, Any] | None:
        """A reply written wholly in GraphRAG's tuple format, as the JSON it stands for (the
        LLM layer asks before parsing JSON); None for anything else."""
        found = from_text(text)
        return {k: v for k, v in found.items() if k in cls.model_fields} if found else None


class GraphClaimsExtraction(GraphExtraction):
    # at least one claim in the schema only: under a grammar a model otherwise answers "[]"
    # (4 of 4 text units); a claim the text does not support is dropped afterwards
    claims: list[ExtractedClaim] = Field([], json_schema_extra={"minItems": 1})


class ClaimsExtraction(BaseModel):
    claims: list[ExtractedClaim] = Field([], json_schema_extra={"minItems": 1})


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.casefold()) if len(w) > 3}


def grounded(claim: ExtractedClaim, text: str, share: float = 0.6) -> bool:
    """Whether ``text`` supports ``claim``: a named subject, and at least ``share`` of the
    longer words of its source quote (or, without one, of its subject) found in the text.
    Drops what a model made up to fill a schema's lower bound."""
    subject = entity_key(claim.subject)
    if subject in ("", "none", "null", "unknown", "n/a"):
        return False
    words = _words(claim.source_quote)
    if not words:
        return subject in " ".join(text.casefold().split())
    return len(words & _words(text)) >= share * len(words)
