"""Entity, relationship and claim extraction from one text unit, with gleaning.

Edge et al. 2024 §3.1.2 (element instances, gleaning) and appendix A; ReTAG §3.1.1 (the
contexts ctx(n), ctx(e) each element keeps). The reply's shape and checks live in
`extract_records`; the graph writes in `elements`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from ..config import Settings
from ..db import Record
from ..errors import LLMError
from ..keys import entity_key, name_capped
from ..llm import LLM
from ..model import TextUnit
from ..prompts import Message, fragment, render
from ..stages import Stage
from .evidence import Grounder, assemble_selected, with_evidence
from .extract_evidence import found_turn as selected_turn
from .extract_evidence import messages as select_messages
from .extract_evidence import reply_model
from .extract_records import (
    NAME_CAPPED,
    NO_ENDPOINT,
    NO_SUBJECT,
    SELF_LOOP,
    UNGROUNDED,
    ClaimsExtraction,
    GraphClaimsExtraction,
    GraphExtraction,
    TextUnitExtraction,
    grounded,
)
from .sentences import unit_sentences

log = logging.getLogger(__name__)


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


def found_turn(reply: GraphExtraction, full: bool = False) -> Message:
    """The gleaning conversation's assistant turn for one extraction reply: the names and
    types of its entities and the endpoints of its relationships, which is what the model
    needs to add only what is missing. The descriptions, strengths and claims it also wrote are
    left out: re-sent at every gleaning round they were 54 % of gleaning's prompt tokens (20
    BBC text units, fakellm). ``full=True``, the whole reply as GraphRAG re-sends
    it, is for benchmarks/cost/glean_assign_gain.py's comparison."""
    if full:
        return {"role": "assistant", "content": reply.model_dump_json()}
    found = {"entities": [{"name": e.name, "type": e.type} for e in reply.entities],
             "relationships": [{"source": r.source, "target": r.target}
                               for r in reply.relationships]}
    return {"role": "assistant", "content": json.dumps(found, ensure_ascii=False)}


async def extract_text_unit(llm: LLM, settings: Settings, unit: TextUnit, *, glean: int,
                            claims: bool, focus: str = "") -> TextUnitExtraction:
    """Extract one text unit, then up to ``glean`` gleaning rounds (stopped when the model
    returns nothing new or answers NO to the continue question); every record tied to the
    sentences it rests on (``index/evidence``). A model that selects (``LLM_CLASS=small``)
    names entities, pairs and the sentences that support them (``index/extract_evidence``);
    one that writes gives GraphRAG's descriptions, checked against the text unit.

    Raises LLMError / LLMParseError when the first extraction fails; a failed gleaning round
    only ends gleaning (what was extracted is kept).
    """
    sentences = unit.sentences or unit_sentences(unit.id, unit.text, unit.location)
    grounder = Grounder(sentences, settings.index.entity_types)
    if settings.llm.small:
        types = settings.index.entity_types
        model: type[BaseModel] = reply_model(tuple(types), len(sentences), claims)
        msgs = select_messages(types, sentences, claims, focus)
        results = await _gleaned(llm, msgs, model, glean, selected_turn)
        ex = assemble_selected(unit.id, grounder, results, types)  # type: ignore[arg-type]
    else:
        separate = claims and settings.index.claims_call == "separate"
        combined = claims and not separate
        model = GraphClaimsExtraction if combined else GraphExtraction
        msgs = messages(settings, unit.text, combined, focus)
        results = await _gleaned(llm, msgs, model, glean, found_turn)
        if separate:
            names = [e.name for r in results for e in r.entities]  # type: ignore[attr-defined]
            results.append(await extract_claims(llm, settings, unit.text, names))
        ex = with_evidence(assemble(unit.id, unit.text, results,  # type: ignore[arg-type]
                                    settings.index.entity_types), grounder, unit.text)
    return ex.model_copy(update={"sentences": [] if unit.sentences else sentences})


async def _gleaned(llm: LLM, msgs: list[Message], model: type[BaseModel], glean: int,
                   turn: Callable[[Any], Message]) -> list[BaseModel]:
    """The extraction reply and those of up to ``glean`` gleaning rounds (Edge et al. 2024
    §3.1.2), each shown to the next as ``turn`` gives it."""
    first = await llm.structured(msgs, model, stage=Stage.EXTRACT)
    results = [first]
    history = msgs + [turn(first)]
    for round_ in range(glean):
        try:  # gleaning is optional: an unusable reply ends it instead of costing retries
            more = await llm.structured(
                history + render("index/extract_glean"), model,
                stage=Stage.GLEAN, attempts=1)
        except LLMError as err:
            log.info("gleaning round %d ended: %s", round_ + 1, err)
            break
        if not more.entities and not more.relationships:  # type: ignore[attr-defined]
            break
        results.append(more)
        history += render("index/extract_glean") + [turn(more)]
        if round_ < glean - 1:
            loop = render("index/extract_loop")
            try:
                answer = await llm.complete(history + loop, stage=Stage.GLEAN, max_tokens=3,
                                            truncation_ok=True, attempts=1)  # "YES, ..."
            except LLMError as err:
                log.info("gleaning ended: the continue question failed (%s)", err)
                break
            if not str(answer).strip().upper().startswith("Y"):
                break
    return results


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
    out = await llm.structured(msgs, ClaimsExtraction, stage=Stage.CLAIMS)
    kept = [c for c in out.claims if grounded(c, text)]
    gone = len(out.claims) - len(kept)
    dropped = {**out.dropped, **({UNGROUNDED: out.dropped.get(UNGROUNDED, 0) + gone}
                                 if gone else {})}
    return GraphClaimsExtraction(entities=[], relationships=[],
                                 claims=[c.model_dump() for c in kept], dropped=dropped)


def assemble(unit_id: str, text: str, results: list[GraphExtraction],
             entity_types: list[str]) -> TextUnitExtraction:
    """Deduplicate one text unit's extractions by key; drop self-loops and empty names;
    create endpoints that relationships name but the entity list lacks (type "unknown")."""
    types = {t.casefold() for t in entity_types}
    entities: dict[str, Record] = {}
    extra: list[str] = []  # records dropped (or capped) here, one reason each

    def add_entity(name: str, etype: str = "unknown", description: str = "") -> str:
        key = entity_key(name)
        if not key:
            return ""
        etype = etype.strip().casefold()
        etype = etype if etype in types else "unknown"
        cur = entities.get(key)
        if cur is None:
            if (capped := name_capped(name)) is not None:
                log.warning("text unit %s: an entity name of %d characters capped to %d, with "
                            "a hash of the full name", unit_id, len(name), len(capped))
                extra.append(NAME_CAPPED)
            entities[key] = {"key": key, "name": capped or " ".join(name.split()),
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
            if not a or not b:
                extra.append(NO_ENDPOINT)
                continue
            if a == b:  # self-loops stay out of the graph and its clustering
                extra.append(SELF_LOOP)
                continue
            a, b = sorted((a, b))
            cur = relationships.get((a, b))
            if cur is None:
                relationships[(a, b)] = {"source_key": a, "target_key": b,
                                         "description": r.description.strip(),
                                         "strength": r.strength}
                continue
            cur["strength"] = max(cur["strength"], r.strength)  # the same pair said twice
            if r.description.strip() and r.description.strip() not in cur["description"]:
                cur["description"] += "\n" + r.description.strip()
    claims: list[Record] = []
    for res in results:
        for c in getattr(res, "claims", []):
            if not grounded(c, text):
                extra.append(UNGROUNDED)
                continue
            subject = add_entity(c.subject)
            if not subject:
                extra.append(NO_SUBJECT)
                continue
            props = c.model_dump()
            cid = hashlib.sha256(f"{unit_id}|{subject}|{c.description}|{c.type}".encode())
            # chunk_id: the Claim node's property, named by the graph schema (:Chunk)
            claims.append({"id": cid.hexdigest()[:32], "subject_key": subject,
                           "props": {**props, "chunk_id": unit_id}})
    unique_claims = list({c["id"]: c for c in claims}.values())
    dropped = [reason for res in results for reason, n in sorted(res.dropped.items())
               for _ in range(n)] + extra
    return TextUnitExtraction(text_unit_id=unit_id, entities=list(entities.values()),
                              relationships=list(relationships.values()),
                              claims=unique_claims, dropped=dropped)
