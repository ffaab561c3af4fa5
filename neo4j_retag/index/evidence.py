"""Every extracted record tied to sentences of its text unit: its ``evidence``. The graph then
states only what the source says, in the source's words, and every statement keeps its place.

Rules, each drop counted by reason (the other records of the text unit are kept):

- an entity no sentence of the text unit names (``checks.mentions``) is the model's own
  knowledge or confusion: dropped; its evidence is the sentences it cited that name it, else
  the first sentences that name it;
- a relationship's evidence is the sentences naming both entities, else the cited ones that
  together name both, else two adjacent sentences naming one each; with none it is dropped;
- a claim's evidence is the cited sentences that name its subject or follow one that does
  ("He resigned"); with none it is dropped.

A model that writes (``LLM_CLASS=capable``) gets the same evidence by name (it cites no
sentence numbers); what it wrote is checked against its text unit (``checked_descriptions``).
"""

from __future__ import annotations

import hashlib

from ..checks.grounding import FindingCheck
from ..checks.mentions import Mentions, grounded_name, lower_words, words
from ..checks.support import supported
from ..keys import entity_key, name_capped
from ..model import SourceSentence
from .extract_evidence import EvidenceExtraction, Selected
from .extract_records import (
    NO_ENDPOINT,
    NO_SUBJECT,
    SELF_LOOP,
    Record,
    TextUnitExtraction,
)

EVIDENCE_PER_UNIT = 4  # sentences an element keeps as evidence from one text unit
NOT_NAMED = "entity no sentence of the text unit names"
NO_EVIDENCE = "relationship no sentence of the text unit states"
CLAIM_UNSTATED = "claim no sentence about its subject states"
BAD_SENTENCE = "sentence number outside the text unit (ignored)"
FOUND_BY_NAME = "evidence found by name: the cited sentences do not name it (kept)"
NAME_CUT = "entity name cut to the words its text unit gives (kept)"
UNSUPPORTED = "written sentence its text unit does not support (removed)"


class Grounder:
    """Ties selected records to the sentences of one text unit (module docstring)."""

    def __init__(self, sentences: list[SourceSentence], types: list[str]) -> None:
        self.sentences = sentences
        self.words = [words(s.text) for s in sentences]
        self.all_words = [w for ws in self.words for w in ws]
        self.common = lower_words(" ".join(s.text for s in sentences))
        self.types = {t.casefold() for t in types}
        self.dropped: list[str] = []
        self._naming: dict[str, list[int]] = {}

    def naming(self, name: str) -> list[int]:
        """Positions of the sentences that name ``name``."""
        key = entity_key(name)
        if key not in self._naming:
            check = Mentions(name, self.common)
            self._naming[key] = [i for i, w in enumerate(self.words) if check(w)]
        return self._naming[key]

    def cited(self, numbers: list[int]) -> list[int]:
        out = []
        for k in numbers:
            if 1 <= k <= len(self.sentences):
                out.append(k - 1)
            else:
                self.dropped.append(BAD_SENTENCE)
        return list(dict.fromkeys(out))

    def ids(self, positions: list[int]) -> list[str]:
        return [self.sentences[i].id for i in sorted(set(positions))[:EVIDENCE_PER_UNIT]]

    def name(self, name: str) -> str | None:
        """``name`` as the text unit gives it (``checks.mentions.grounded_name``), the cut
        counted; None, counted, for a name the text unit never gives."""
        got = grounded_name(name, self.all_words, self.common)
        if got is None:
            self.dropped.append(NOT_NAMED)
        elif got != name.strip():
            self.dropped.append(NAME_CUT)
        return got

    def entity(self, rec: Selected) -> list[str] | None:
        name = rec.names[0]
        naming = self.naming(name)
        if not naming:
            self.dropped.append(NOT_NAMED)
            return None
        cited = [i for i in self.cited(rec.sentences) if i in naming]
        if rec.sentences and not cited:
            self.dropped.append(FOUND_BY_NAME)
        return self.ids(cited + [i for i in naming if i not in cited])

    def relationship(self, a: str, b: str, numbers: list[int]) -> list[str] | None:
        na, nb = set(self.naming(a)), set(self.naming(b))
        both = sorted(na & nb)
        if both:
            return self.ids(both)
        cited = [i for i in self.cited(numbers) if i in na | nb]
        if {*cited} & na and {*cited} & nb:
            return self.ids(cited)
        pair = next(([i, i + 1] for i in range(len(self.sentences) - 1)
                     if (i in na and i + 1 in nb) or (i in nb and i + 1 in na)), None)
        if pair:
            return self.ids(pair)
        self.dropped.append(NO_EVIDENCE)
        return None

    def claim(self, rec: Selected) -> list[str] | None:
        naming = set(self.naming(rec.names[0]))
        cited = [i for i in self.cited(rec.sentences) if i in naming or i - 1 in naming]
        if not cited:
            self.dropped.append(CLAIM_UNSTATED)
            return None
        return self.ids(cited)

    def text(self, ids: list[str]) -> str:
        """The evidence sentences' text, one per line (a text unit's description of an
        element: what the graph shows and reports compose)."""
        by_id = {s.id: s.text for s in self.sentences}
        return "\n".join(by_id[i] for i in ids)


def claim_id(unit_id: str, subject: str, evidence: list[str]) -> str:
    blob = f"{unit_id}|{subject}|{' '.join(evidence)}|evidence"
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def assemble_selected(unit_id: str, grounder: Grounder, results: list[EvidenceExtraction],
                      types: list[str]) -> TextUnitExtraction:
    """One text unit's selected records, tied to its sentences (module docstring): entities
    by key (the first type given that is one of ``types`` wins, else ``unknown``), each with
    its ``evidence`` ids and, as its description from this text unit, their sentences;
    relationships once per pair; claims by subject and evidence."""
    allowed = {t.casefold() for t in types}
    entities: dict[str, Record] = {}
    dropped = [reason for res in results for reason, n in sorted(res.dropped.items())
               for _ in range(n)]

    names: dict[str, str | None] = {}  # a name as the model wrote it -> as the text gives it

    def add(written: str, etype: str, numbers: list[int]) -> str | None:
        if written not in names:
            names[written] = grounder.name(written)
        name = names[written]
        if name is None:
            return None
        key = entity_key(name)
        cur = entities.get(key)
        if cur is not None:
            if cur["type"] == "unknown" and etype.casefold() in allowed:
                cur["type"] = etype.casefold()
            return key
        evidence = grounder.entity(Selected(names=[name], type=etype, sentences=numbers))
        if evidence is None:
            return None
        entities[key] = {"key": key, "name": name_capped(name) or " ".join(name.split()),
                         "type": etype.casefold() if etype.casefold() in allowed else "unknown",
                         "description": grounder.text(evidence), "evidence": evidence,
                         "context": grounder.text(evidence[:1])}
        return key

    for res in results:
        for e in res.entities:
            add(e.names[0], e.type, e.sentences)
    relationships: dict[tuple[str, str], Record] = {}
    for res in results:
        for r in res.relationships:
            a, b = (add(n, "", []) for n in r.names)
            if a is None or b is None:
                dropped.append(NO_ENDPOINT)
                continue
            if a == b:
                dropped.append(SELF_LOOP)
                continue
            pair = tuple(sorted((a, b)))
            if pair in relationships:
                continue
            evidence = grounder.relationship(names[r.names[0]] or "", names[r.names[1]] or "",
                                             r.sentences)
            if evidence is not None:
                relationships[pair] = {"source_key": pair[0], "target_key": pair[1],
                                       "description": grounder.text(evidence),
                                       "strength": float(len(evidence)), "evidence": evidence}
    claims: dict[str, Record] = {}
    for res in results:
        for c in res.claims:
            subject = add(c.names[0], "", [])
            if subject is None:
                dropped.append(NO_SUBJECT)
                continue
            evidence = grounder.claim(c.model_copy(update={"names": [names[c.names[0]]]}))
            if evidence is None:
                continue
            text = grounder.text(evidence)
            cid = claim_id(unit_id, subject, evidence)
            claims[cid] = {"id": cid, "subject_key": subject, "evidence": evidence, "props": {
                "subject": c.names[0], "object": "", "type": "stated", "status": "SUSPECTED",
                "description": text, "source_quote": text, "chunk_id": unit_id}}
    return TextUnitExtraction(text_unit_id=unit_id, entities=list(entities.values()),
                              relationships=list(relationships.values()),
                              claims=list(claims.values()), dropped=dropped + grounder.dropped)


def with_evidence(ex: TextUnitExtraction, grounder: Grounder, text: str) -> TextUnitExtraction:
    """A written extraction (``LLM_CLASS=capable``) with its evidence found by name and what
    the model wrote checked: every description sentence its text unit does not support
    (``checks.grounding.FindingCheck``: words the text lacks, names it does not hold) is
    removed and counted. Records keep their place when no sentence names them (the model
    may have named an entity its own way): they just have no evidence."""
    check = FindingCheck(text)
    removed: list[str] = []

    def checked(description: str) -> str:
        kept, n = supported(description, check)
        removed.extend([UNSUPPORTED] * n)
        return kept

    entities = [{**e, "description": checked(e.get("description") or ""),
                 "evidence": grounder.ids(grounder.naming(e["name"]))} for e in ex.entities]
    names = {e["key"]: e["name"] for e in entities}
    relationships = []
    for r in ex.relationships:
        a, b = names.get(r["source_key"], r["source_key"]), names.get(r["target_key"],
                                                                      r["target_key"])
        found = grounder.relationship(a, b, [])
        relationships.append({**r, "description": checked(r.get("description") or ""),
                              "evidence": found or []})
    grounder.dropped = [d for d in grounder.dropped if d != NO_EVIDENCE]  # kept, written
    claims = []
    for c in ex.claims:
        subject = names.get(c["subject_key"], c["props"].get("subject", ""))
        quote = str(c["props"].get("source_quote") or "")
        near = grounder.naming(subject)
        evidence = [i for i in near if not quote or set(words(quote)) & set(grounder.words[i])]
        claims.append({**c, "evidence": grounder.ids(evidence or near)})
    return ex.model_copy(update={"entities": entities, "relationships": relationships,
                                 "claims": claims, "dropped": ex.dropped + removed})
