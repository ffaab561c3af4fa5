"""Entity, relationship and claim extraction from one text unit, with gleaning.

Edge et al. 2024 §3.1.2 (element instances, gleaning) and appendix A; ReTAG §3.1.1 (the
contexts ctx(n), ctx(e) each element keeps). Output is typed; the graph writes live in graph.py.
"""

from __future__ import annotations

import hashlib
import logging
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

from ..config import Settings
from ..db import Record
from ..errors import LLMError
from ..llm import LLM
from ..model import MAX_KEY_CHARS, clamped, entity_key
from ..prompts import Message, fragment, render

log = logging.getLogger(__name__)


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


class GraphClaimsExtraction(GraphExtraction):
    # at least one claim in the schema only: under a grammar a model otherwise answers "[]"
    # (issue 13: 4 of 4 text units); a claim the text does not support is dropped afterwards
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


class ChunkExtraction(BaseModel):
    """Everything one text unit produced, ready for elements.write_extractions."""

    chunk_id: str
    entities: list[Record]
    relationships: list[Record]
    claims: list[Record]
    dropped: list[str] = []  # one reason per record dropped (stored on the Chunk)


def _sentence(text: str, name: str) -> str:
    """The first sentence of ``text`` that names ``name``: the element's context, ctx(n)."""
    low = name.casefold()
    for sent in re.split(r"(?<=[.!?])\s+", text):
        if low in sent.casefold():
            return sent.strip()[:1000]
    return ""


def messages(settings: Settings, text: str, claims: bool, focus: str = "") -> list[Message]:
    """The extraction prompt (``prompts/index/extract_graph.txt`` and its claim pieces)."""
    return render(
        "index/extract_graph",
        entity_types=", ".join(settings.index.entity_types),
        claims_instruction=fragment("index/extract_claims" if claims
                                 else "index/extract_no_claims"),
        claims_shape=fragment("index/extract_claims_shape") if claims else "",
        focus=fragment("index/extract_focus", focus=focus) if focus else "",
        text=text,
    )


async def extract_chunk(llm: LLM, settings: Settings, chunk_id: str, text: str, *,
                        glean: int, claims: bool, focus: str = "") -> ChunkExtraction:
    """Extract one text unit, then up to ``glean`` gleaning rounds (stopped when the model
    returns nothing new or answers NO to the continue question).

    Raises LLMError / LLMParseError when the first extraction fails; a failed gleaning round
    only ends gleaning (what was extracted is kept).
    """
    separate = claims and settings.index.claims_call == "separate"
    combined = claims and not separate
    model = GraphClaimsExtraction if combined else GraphExtraction
    msgs = messages(settings, text, combined, focus)
    first = await llm.structured(msgs, model, stage="extract")
    results = [first]
    history = msgs + [{"role": "assistant", "content": first.model_dump_json()}]
    for round_ in range(glean):
        try:  # gleaning is optional: an unusable reply ends it instead of costing retries
            more = await llm.structured(
                history + render("index/extract_glean"), model,
                stage="glean", attempts=1)
        except LLMError as err:
            log.info("gleaning round %d ended: %s", round_ + 1, err)
            break
        if not more.entities and not more.relationships:
            break
        results.append(more)
        history += render("index/extract_glean") + [
            {"role": "assistant", "content": more.model_dump_json()}]
        if round_ < glean - 1:
            loop = render("index/extract_loop")
            try:
                answer = await llm.complete(history + loop, stage="glean", max_tokens=3,
                                            truncation_ok=True, attempts=1)  # "YES, ..."
            except LLMError as err:
                log.info("gleaning ended: the continue question failed (%s)", err)
                break
            if not str(answer).strip().upper().startswith("Y"):
                break
    if separate:
        names = [e.name for r in results for e in r.entities]
        results.append(await extract_claims(llm, settings, text, names))
    return assemble(chunk_id, text, results, settings.index.entity_types)


async def extract_claims(llm: LLM, settings: Settings, text: str,
                         names: list[str]) -> GraphClaimsExtraction:
    """Claims of one text unit by a call of their own (``prompts/index/extract_claims_only``,
    GraphRAG's covariate extraction, Edge et al. 2024 appendix A), about the entity types and
    the entities the graph extraction found. Claims the text does not support are dropped.

    Raises LLMError / LLMParseError: the text unit then fails and is retried by the next run
    (its graph extraction comes from the response cache)."""
    spec = ", ".join(settings.index.entity_types)
    found = list(dict.fromkeys(n for n in names if n.strip()))[:30]
    if found:
        spec += f"; in this text: {', '.join(found)}"
    msgs = render("index/extract_claims_only", entity_specs=spec,
                  text=text)
    out = await llm.structured(msgs, ClaimsExtraction, stage="claims")
    kept = [c for c in out.claims if grounded(c, text)]
    return GraphClaimsExtraction(claims=[c.model_dump() for c in kept])


def assemble(chunk_id: str, text: str, results: list[GraphExtraction],
             entity_types: list[str]) -> ChunkExtraction:
    """Deduplicate one text unit's extractions by key; drop self-loops and empty names;
    create endpoints that relationships name but the entity list lacks (type "unknown")."""
    types = {t.casefold() for t in entity_types}
    entities: dict[str, Record] = {}

    def add_entity(name: str, etype: str = "unknown", description: str = "") -> str:
        key = entity_key(name)
        if not key:
            return ""
        etype = etype.strip().casefold()
        etype = etype if etype in types else "unknown"
        cur = entities.get(key)
        if cur is None:
            entities[key] = {"key": key, "name": " ".join(name.split())[:MAX_KEY_CHARS],
                             "type": etype, "description": description.strip(),
                             "context": _sentence(text, name)}
        else:
            if cur["type"] == "unknown":
                cur["type"] = etype
            if description.strip() and description.strip() not in cur["description"]:
                cur["description"] = (cur["description"] + "\n" + description.strip()).strip()
        return key

    for res in results:
        for e in res.entities:
            add_entity(e.name, e.type, e.description)
    relationships: dict[tuple[str, str], Record] = {}
    for res in results:
        for r in res.relationships:
            a, b = add_entity(r.source), add_entity(r.target)
            if not a or not b or a == b:  # self-loops stay out of the graph and its clustering
                continue
            a, b = sorted((a, b))
            cur = relationships.get((a, b))
            if cur is None:
                relationships[(a, b)] = {"source_key": a, "target_key": b,
                                         "description": r.description.strip(),
                                         "strength": r.strength}
            elif r.description.strip() and r.description.strip() not in cur["description"]:
                cur["description"] += "\n" + r.description.strip()
    claims: list[Record] = []
    for res in results:
        for c in getattr(res, "claims", []):
            if not grounded(c, text):
                continue
            subject = add_entity(c.subject)
            if not subject:
                continue
            props = c.model_dump()
            cid = hashlib.sha256(f"{chunk_id}|{subject}|{c.description}|{c.type}".encode())
            claims.append({"id": cid.hexdigest()[:32], "subject_key": subject,
                           "props": {**props, "chunk_id": chunk_id}})
    unique_claims = list({c["id"]: c for c in claims}.values())
    dropped = [reason for res in results for reason, n in sorted(res.dropped.items())
               for _ in range(n)]
    return ChunkExtraction(chunk_id=chunk_id, entities=list(entities.values()),
                           relationships=list(relationships.values()), claims=unique_claims,
                           dropped=dropped)
