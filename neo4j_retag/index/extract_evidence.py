"""Extraction by a model that selects (``LLM_CLASS=small``): the text unit's sentences,
numbered, in; entity names and types, the pairs of entities a sentence relates, the subjects
of claims and the numbers of their sentences out - short structured output, no prose
(``prompts/index/extract_evidence.txt``). ``index/evidence`` then ties every record to the
sentences of the text, so the graph states only what the source says, in its words."""

from __future__ import annotations

import functools
import json
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from ..keys import entity_key
from ..model import JSON, SourceSentence
from ..prompts import Message, fragment, render

MAX_ENTITIES, MAX_RELATIONSHIPS, MAX_CLAIMS = 20, 20, 10  # records per reply
MAX_CITED = 6  # sentence numbers per record

# why a record was dropped (index.extract_records and index.evidence have the others)
NOT_A_RECORD = "not a record"


class Selected(BaseModel):
    """One selected record: ``names`` (one entity, two endpoints, or a claim's subject),
    ``type`` (entities), the ``sentences`` cited (1-based numbers)."""

    names: list[str]
    type: str = ""
    sentences: list[int] = []


def _ints(value: Any) -> list[int]:
    out = []
    for x in value if isinstance(value, list) else [value]:
        try:
            out.append(int(x))
        except (TypeError, ValueError):
            continue
    return out[:MAX_CITED]


def _record(item: Any, kind: str) -> Selected | None:
    """``item`` as a record of ``kind``: a list (the asked form) or an object (an endpoint
    that ignored the schema); None when it is neither."""
    n = {"entities": 1, "relationships": 2, "claims": 1}[kind]
    if isinstance(item, dict):
        keys = {"entities": ("name",), "relationships": ("source", "target"),
                "claims": ("subject",)}[kind]
        names = [item.get(k) for k in keys]
        item = [*names, *([item.get("type", "")] if kind == "entities" else []),
                item.get("sentences", [])]
    if not isinstance(item, list | tuple) or len(item) < n:
        return None
    names = [str(x).strip() for x in item[:n] if isinstance(x, str | int | float)]
    if len(names) < n or not all(entity_key(x) for x in names):
        return None
    rest = list(item[n:])
    etype = str(rest.pop(0)) if kind == "entities" and rest and isinstance(rest[0], str) else ""
    return Selected(names=names, type=etype, sentences=_ints(rest[0]) if rest else [])


class EvidenceExtraction(BaseModel):
    """A selecting model's reply, validated record by record: a record that is not one is
    dropped and counted in ``dropped``; the schema sent is :func:`reply_schema`'s."""

    OWN_BOUNDS: ClassVar[bool] = True
    entities: list[Selected] = []
    relationships: list[Selected] = []
    claims: list[Selected] = []
    dropped: SkipJsonSchema[dict[str, int]] = Field(default_factory=dict, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _per_record(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {"dropped": dict(data.get("dropped") or {})}
        caps = {"entities": MAX_ENTITIES, "relationships": MAX_RELATIONSHIPS,
                "claims": MAX_CLAIMS}
        for kind, cap in caps.items():
            items = data.get(kind) or []
            items = items if isinstance(items, list) else [items]
            kept = []
            for item in items[:cap]:
                if isinstance(item, Selected):
                    kept.append(item)
                elif (rec := _record(item, kind)) is not None:
                    kept.append(rec)
                else:
                    out["dropped"][NOT_A_RECORD] = out["dropped"].get(NOT_A_RECORD, 0) + 1
            out[kind] = kept
        return out


@functools.lru_cache(maxsize=64)
def reply_model(types: tuple[str, ...], n: int, claims: bool) -> type[EvidenceExtraction]:
    """The reply model for a text unit of ``n`` sentences: its schema (the grammar a
    constrained server decodes under) holds names to 120 characters, types to ``types``,
    sentence numbers to 1..n, and each list to its bound."""
    cited = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": max(1, n)},
             "minItems": 1, "maxItems": MAX_CITED}
    name = {"type": "string", "maxLength": 120}

    def rows(parts: list[JSON], most: int) -> JSON:
        return {"type": "array", "maxItems": most, "items": {
            "type": "array", "prefixItems": parts, "minItems": len(parts),
            "maxItems": len(parts)}}

    props = {"entities": rows([name, {"enum": list(types)}, cited], MAX_ENTITIES),
             "relationships": rows([name, name, cited], MAX_RELATIONSHIPS)}
    if claims:
        props["claims"] = rows([name, cited], MAX_CLAIMS)
    schema = {"type": "object", "properties": props, "required": list(props),
              "additionalProperties": False}

    class Reply(EvidenceExtraction):
        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> JSON:
            return schema

    Reply.__name__ = "EvidenceExtraction"
    return Reply


def numbered(sentences: list[SourceSentence]) -> str:
    return "\n".join(f"[{i}] {s.text}" for i, s in enumerate(sentences, 1))


def messages(types: list[str], sentences: list[SourceSentence], claims: bool,
             focus: str = "") -> list[Message]:
    """The selecting extraction's prompt: the fixed instructions first (a local server
    reuses their cache from one text unit to the next), the numbered sentences last."""
    return render(
        "index/extract_evidence", entity_types=", ".join(types),
        claims_instruction=fragment("index/extract_evidence_claims") if claims else "",
        claims_example=fragment("index/extract_evidence_claims_example") if claims else "",
        focus=fragment("index/extract_focus", focus=focus) if focus else "",
        text=numbered(sentences))


def found_turn(reply: EvidenceExtraction) -> Message:
    """The gleaning conversation's assistant turn: what was found, names and types only."""
    return {"role": "assistant", "content": json.dumps(
        {"entities": [[e.names[0], e.type, []] for e in reply.entities],
         "relationships": [[*r.names, []] for r in reply.relationships]}, ensure_ascii=False)}
