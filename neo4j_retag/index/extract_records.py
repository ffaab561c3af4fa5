"""The JSON an extraction reply must have, and its checks: typed entity, relationship and
claim records (Edge et al. 2024 appendix A), validated one by one so that a bad record is
dropped with a reason while the others of its text unit are kept; claims checked against the
text (``grounded``). No LLM call here: `extract` drives the calls.

One validation whichever mode produced the records (JSON schema, JSON object, GraphRAG tuples
as a whole reply or inside our lists): the same drop rules, and the same bounds when the
caller passes them as validation context (``{"max_items": n, "max_chars": c}``, what
`LLM.structured` passes for a model with ``OWN_BOUNDS``): records past ``max_items`` of a
list are dropped, text fields over ``max_chars`` cut, each counted in ``dropped``. Names are
not cut here: an overlong name is capped with a hash of the whole (``keys.name_capped``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from ..keys import MAX_KEY_CHARS, entity_key
from ..model import SourceSentence, clamped
from ..text import TERM
from .tuples import DROP, REPAIR, from_text, from_tuple

Record = dict[str, Any]


class TextUnitExtraction(BaseModel):
    """Everything one text unit produced, ready for ``elements.write_extractions``: each
    entity, relationship and claim record with its ``evidence`` (the ids of the sentences it
    rests on); ``sentences`` to create first (a text unit loaded before sentences existed
    gets them from its own text; empty otherwise); ``dropped``, one reason per record
    dropped or changed (stored on the Chunk)."""

    text_unit_id: str
    entities: list[Record]
    relationships: list[Record]
    claims: list[Record]
    sentences: list[SourceSentence] = []
    dropped: list[str] = []


def _coerce_item(v: Any, field: str) -> Any:
    # small models sometimes answer with bare strings instead of objects
    return {field: v} if isinstance(v, str) else v


def _text(v: Any) -> str:
    """A string field a model may leave null or give as a number; an object or a list in
    its place is a wrong field (the record is dropped and counted, never stored as its
    Python repr)."""
    if v is None:
        return ""
    if isinstance(v, dict | list):
        raise ValueError("an object or a list where text belongs")
    return str(v)


Text = Annotated[str, BeforeValidator(_text)]


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
OVER_ITEMS = "record past the bound of records per list (LLM_SCHEMA_MAX_ITEMS)"
OVER_CHARS = "text field over LLM_SCHEMA_MAX_CHARS characters cut (kept)"
NO_LIST = "reply without one of its lists, none of that kind extracted"
STRENGTH_SET = "relationship strength not a number from 1 to 10, clamped or set to 5 (kept)"
# the fields that name an entity: never cut (an overlong name is capped with a hash instead)
NAMES = frozenset({"name", "source", "target", "subject", "object"})


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


def _strength_ok(item: Any) -> bool:
    """Whether a relationship's strength is a number from 1 to 10 as given (or not given)."""
    if not isinstance(item, dict) or item.get("strength") is None:
        return True
    try:
        return 1 <= float(item["strength"]) <= 10
    except (TypeError, ValueError):
        return False


def _count(dropped: dict[str, int], reason: str, n: int = 1) -> None:
    if n:
        dropped[reason] = dropped.get(reason, 0) + n


def _cut(item: Any, max_chars: int, dropped: dict[str, int]) -> Any:
    """``item`` with its text fields (not its names) cut to ``max_chars``, each counted."""
    if not isinstance(item, dict):
        return item
    out = dict(item)
    for k, v in item.items():
        if k not in NAMES and isinstance(v, str) and len(v) > max_chars:
            out[k] = v[:max_chars]
            _count(dropped, OVER_CHARS)
    return out


MODELS = {"entities": ExtractedEntity, "relationships": ExtractedRelationship,
          "claims": ExtractedClaim}


class Records(BaseModel):
    """Extraction records of a reply, validated one by one: a bad record is dropped and
    counted in ``dropped`` by reason; the good ones are kept (never sent in the schema). The
    bounds come from the validation context (module docstring)."""

    OWN_BOUNDS: ClassVar[bool] = True  # LLM.structured: bounds checked here, by record
    dropped: SkipJsonSchema[dict[str, int]] = Field(default_factory=dict, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _per_record(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        bounds = info.context if isinstance(info.context, dict) else {}
        max_items, max_chars = bounds.get("max_items"), bounds.get("max_chars")
        data = dict(data)
        dropped: dict[str, int] = dict(data.get("dropped") or {})
        salvaged: dict[str, list[Any]] = {k: [] for k in MODELS}
        for kind in MODELS:  # GraphRAG tuples written as strings in our lists
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
                _count(dropped, TUPLE_SALVAGED, sum(DROP not in r for r in recs))
        for kind, model in MODELS.items():
            if kind not in cls.model_fields:
                continue
            if kind not in data:  # the model left a list out: nothing of it, said
                if kind != "claims" or cls.model_fields[kind].json_schema_extra:
                    _count(dropped, NO_LIST)
                continue
            items = data[kind]
            if not isinstance(items, list):  # prose or an object where a list belongs
                if items not in (None, "", {}):
                    _count(dropped, NOT_A_RECORD)
                items = []
            keep = []
            for item in items:
                if isinstance(item, dict) and DROP in item:  # a tuple too short to read
                    _count(dropped, item[DROP])
                    continue
                if isinstance(item, dict) and REPAIR in item:  # a tuple repaired: counted
                    _count(dropped, item[REPAIR])
                    item = {k: v for k, v in item.items() if k != REPAIR}
                reason = _check(item, kind)
                if reason is None:
                    try:
                        model.model_validate(item)
                    except ValidationError:
                        reason = WRONG_FIELDS
                if reason is None and kind == "relationships" and not _strength_ok(item):
                    _count(dropped, STRENGTH_SET)
                if reason is None:
                    keep.append(item)
                else:
                    _count(dropped, reason)
            if max_items is not None and len(keep) > max_items:
                _count(dropped, OVER_ITEMS, len(keep) - max_items)
                keep = keep[:max_items]
            if max_chars is not None:
                keep = [_cut(item, max_chars, dropped) for item in keep]
            data[kind] = keep
        data["dropped"] = dropped
        return data

    @classmethod
    def from_text(cls, text: str) -> dict[str, Any] | None:
        """A reply written wholly in GraphRAG's tuple format, as the JSON it stands for (the
        LLM layer asks before parsing JSON); None for anything else."""
        found = from_text(text)
        if not found:
            return None
        # a kind with no tuple is none of it, not a list the model left out
        return {k: found.get(k, []) for k in MODELS if k in cls.model_fields}


class GraphExtraction(Records):
    """One extraction reply: entities and relationships (`Records`' checks)."""

    entities: list[ExtractedEntity] = []
    relationships: list[ExtractedRelationship] = []


class GraphClaimsExtraction(GraphExtraction):
    # at least one claim in the schema only: under a grammar a model otherwise answers "[]"
    # (4 of 4 text units); a claim the text does not support is dropped afterwards
    claims: list[ExtractedClaim] = Field([], json_schema_extra={"minItems": 1})


class ClaimsExtraction(Records):
    claims: list[ExtractedClaim] = Field([], json_schema_extra={"minItems": 1})


def _words(text: str) -> set[str]:
    return {w for w in TERM.findall(text.casefold()) if len(w) > 3}


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
