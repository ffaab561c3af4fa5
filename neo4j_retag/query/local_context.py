"""Local search's context, as Microsoft GraphRAG builds it (Edge et al. 2024; graphrag
``query/structured_search/local_search/mixed_context.py`` and ``query/context_builder/``),
shared by the ``local`` method and DRIFT's follow-ups; our own code over Neo4j.

Seeding: the entities whose description embeddings are nearest the question's (the entity
vector index); without embeddings (an index built with them off, or the embedding call
failed) the full-text index matches the question's words instead, said in a trace note and
the log. Context, within one token budget: community reports (``community_prop`` of it;
ranked by how many seeded entities they hold, then rank), the seeded entities with their
relationships (in-network first, then out-network by links to the seeds and rank; at most
``LOCAL_TOP_K_RELATIONSHIPS`` per entity) and claims (the rest, entity by entity while they
fit), and the text units that mention them (``text_unit_prop``): ranked by BM25 against the
question (this project's choice, kept from before: the best-matching units survive a small
budget), ties in GraphRAG's order (seed order, then how many of the seed's relationships the
unit supports). Its settings (:class:`LocalSettings`) are local search's, read by DRIFT's
follow-ups too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..config import Group, Settings, env
from ..db import Graph, Record
from ..errors import ConfigError
from ..llm import LLM
from ..model import Citation, Seeding, Trace
from ..prompts import csv_table
from ..tokens import count
from .common import bm25_order, fit, note_once
from .embedding import embed_question
from .retrieval import lucene_query
from .vectors import nearest_entities

UNITS_PER_ENTITY = 20  # text units fetched per seed before the budget cuts them
CLAIMS_PER_ENTITY = 10
RELS_FETCHED = 3  # relationships fetched per seed: this many times LOCAL_TOP_K_RELATIONSHIPS


class LocalSettings(Group):
    """Local search (`--method local`, and DRIFT's follow-ups)."""

    top_k_entities: int = env("LOCAL_TOP_K_ENTITIES", 10, "entities seeded (by embedding; by "
                              "string match without), for DRIFT's follow-ups too", ge=1)
    top_k_relationships: int = env("LOCAL_TOP_K_RELATIONSHIPS", 10, "relationships to "
                                   "entities outside the seeds, per seed", ge=1)
    text_unit_prop: float = env("LOCAL_TEXT_UNIT_PROP", 0.5, "share of the context budget for "
                                "text units", ge=0, le=1)
    community_prop: float = env("LOCAL_COMMUNITY_PROP", 0.15, "share of the context budget for "
                                "community reports; the rest is entities, relationships and "
                                "claims", ge=0, le=1)


class SourceIds:
    """Text unit id -> the ``Sources`` id a context shows for it: stable over one question's
    several contexts (DRIFT), so an id means one text unit in every answer and the reduce."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def of(self, unit_id: str) -> int:
        return self.ids.setdefault(unit_id, len(self.ids))


@dataclass
class LocalContext:
    """The tables for the answer call and what an answer may cite from them (keys
    ``Reports:<community id>`` and ``Sources:<n>``, as `citations.cited_sources` takes them)."""

    text: str
    valid: dict[str, Citation] = field(default_factory=dict)
    seeding: Seeding | None = None
    entities: int = 0
    relationships: int = 0
    claims: int = 0
    reports: int = 0
    units: int = 0
    # entity / relationship descriptions withheld: their summary may cite a deleted document,
    # the remaining text units' descriptions were read instead (see WITHHELD_NOTE)
    withheld: int = 0
    # what a quoted answer may quote: the entities shown ((key, name), best first) and the
    # text units (ids, in the order shown)
    shown_entities: list[tuple[str, str]] = field(default_factory=list)
    unit_ids: list[str] = field(default_factory=list)


WITHHELD_NOTE = ("{n} entity or relationship description(s) withheld: documents they may cite "
                 "were deleted since they were summarised; the remaining text units' "
                 "descriptions were used (the next ingest re-summarises them)")


async def seed(graph: Graph, llm: LLM, settings: Settings, question: str, trace: Trace,
               vector: list[float] | None = None, *, embed: bool = True) -> Seeding | None:
    """The entities to start from, best first: nearest by embedding (``vector``, else the
    question embedded here unless not ``embed``), else by string match with a note. None
    when nothing matches."""
    k = settings.method(LocalSettings).top_k_entities
    if vector is None and embed:
        got = await embed_question(graph, llm, settings, [question], trace)
        vector = got[0] if got else None
    if vector is not None:
        rows = nearest_entities(graph, vector, k)
        if rows:
            return Seeding(by="embedding", entities=[r["key"] for r in rows],
                           scores=[round(float(r["score"]), 4) for r in rows])
        note_once(trace, "no entity has an embedding near the question: entities seeded by "
                  "string match")
    q = lucene_query(question)
    rows = graph.run("query/local_seed_text", query=q, k=k) if q else []
    if not rows:
        return None
    return Seeding(by="full_text", entities=[r["key"] for r in rows],
                   scores=[round(float(r["score"]), 4) for r in rows])


def _relationships(rels: list[Record], keys: list[str], top_k: int) -> list[Record]:
    """GraphRAG's order (``_filter_relationships``): between seeds first (by rank), then to
    other entities by how many seeds they link to, then rank; at most ``top_k`` per seed of
    the latter."""
    chosen = set(keys)
    inside = [r for r in rels if r["source_key"] in chosen and r["target_key"] in chosen]
    outside = [r for r in rels if (r["source_key"] in chosen) != (r["target_key"] in chosen)]

    def other(r: Record) -> str:
        return r["target_key"] if r["source_key"] in chosen else r["source_key"]

    links = Counter(other(r) for r in outside)
    inside.sort(key=lambda r: (-r["rank"], -(r["weight"] or 0)))
    outside.sort(key=lambda r: (-links[other(r)], -r["rank"], -(r["weight"] or 0)))
    return inside + outside[:top_k * len(keys)]


def _local_tables(graph: Graph, settings: Settings, ents: list[Record], budget: int,
                  ) -> tuple[list[str], int, int, int, int]:
    """Entities, then their relationships and claims, entity by entity while the three
    tables fit ``budget`` (GraphRAG's ``_build_local_context``): the tables and their counts."""
    enc = settings.encoding
    keys = [e["key"] for e in ents]
    top_k = settings.method(LocalSettings).top_k_relationships
    rels = graph.run("query/local_relationships", keys=keys,
                     per_entity=max(1, top_k * RELS_FETCHED)) if top_k else []
    claims = graph.run("query/local_claims", keys=keys, per_entity=CLAIMS_PER_ENTITY)
    rows = fit([[e["name"], e["type"] or "", e["description"] or "", e["degree"]]
                for e in ents], budget, enc)
    entities = csv_table("Entities", ["entity", "type", "description", "relationships"], rows)
    best: tuple[str, str, int, int] = ("", "", 0, 0)
    for n in range(1, len(rows) + 1):
        added = keys[:n]
        r_rows = [[r["source"], r["target"], r["description"] or "", r["weight"]]
                  for r in _relationships(rels, added, top_k)]
        c_rows = [[c["entity"], c["object"] or "", c["type"] or "", c["status"] or "",
                   c["description"] or ""] for c in claims if c["key"] in added]
        r_table = csv_table("Relationships", ["source", "target", "description", "weight"],
                            r_rows) if r_rows else ""
        c_table = csv_table("Claims", ["entity", "object", "type", "status", "description"],
                            c_rows) if c_rows else ""
        if count(entities + r_table + c_table, enc) > budget:
            break  # GraphRAG's rule: back to the previous entity's tables
        best = (r_table, c_table, len(r_rows), len(c_rows))
    tables = [entities, *(t for t in best[:2] if t)]
    withheld = sum(bool(e.get("withheld")) for e in ents) + sum(bool(r.get("withheld"))
                                                              for r in rels)
    return tables, len(rows), best[2], best[3], withheld


def build_context(graph: Graph, settings: Settings, question: str, seeding: Seeding,
                  level: int, budget: int, *, text_unit_prop: float, community_prop: float,
                  ids: SourceIds | None = None) -> LocalContext:
    """The context of ``seeding``'s entities for ``question`` within ``budget`` tokens
    (module doc); ``ids`` numbers the text units (shared by one DRIFT question's contexts).
    Raises ConfigError when the two shares add up to more than the budget."""
    if text_unit_prop + community_prop > 1:
        raise ConfigError("LOCAL_TEXT_UNIT_PROP + LOCAL_COMMUNITY_PROP must be at most 1")
    ids = ids or SourceIds()
    enc = settings.encoding
    keys = seeding.entities
    ents = graph.run("query/local_entities", keys=keys, level=level)
    matches: Counter[int] = Counter()
    reports: dict[int, dict[str, Any]] = {}
    for e in ents:
        for r in e["reports"]:
            matches[r["id"]] += 1
            reports[r["id"]] = r
    ranked = sorted(reports.values(),
                    key=lambda r: (-matches[r["id"]], -(r["rank"] or 0), r["id"]))
    report_rows = fit([[r["id"], r["title"] or "", r["summary"] or ""] for r in ranked],
                      int(budget * community_prop), enc)
    local_budget = max(0, int(budget * (1 - community_prop - text_unit_prop)))
    local, n_ents, n_rels, n_claims, withheld = _local_tables(graph, settings, ents,
                                                              local_budget)
    units: dict[str, tuple[int, int, str]] = {}  # id -> (seed position, -rels, text)
    for row in graph.run("query/local_text_units", keys=keys, per_entity=UNITS_PER_ENTITY):
        for u in row["units"]:
            units.setdefault(u["id"], (row["i"], -u["rels"], u["text"]))
    order = sorted(units, key=lambda i: units[i][:2])  # GraphRAG's order: the tie-break
    order = [order[j] for j in bm25_order(question, [units[i][2] for i in order])]
    fitted = fit([[i, units[i][2]] for i in order], int(budget * text_unit_prop), enc)
    unit_rows = [[ids.of(i), text] for i, text in fitted]  # numbered only when shown
    parts = ([csv_table("Reports", ["id", "title", "summary"], report_rows)]
             if report_rows else [])
    parts += local
    if unit_rows:
        parts.append(csv_table("Sources", ["id", "text"], unit_rows))
    valid = {f"Reports:{r[0]}": Citation(kind="report", id=r[0], title=r[1], level=level)
             for r in report_rows}
    valid |= {f"Sources:{ids.of(i)}": Citation(kind="text_unit", id=i) for i, _ in fitted}
    return LocalContext(text="\n".join(parts), valid=valid, seeding=seeding, entities=n_ents,
                        relationships=n_rels, claims=n_claims, reports=len(report_rows),
                        units=len(unit_rows), withheld=withheld,
                        shown_entities=[(e["key"], e["name"]) for e in ents[:n_ents]],
                        unit_ids=[i for i, _ in fitted])
