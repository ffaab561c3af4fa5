"""The lazy index (LazyGraphRAG, Microsoft Research blog 2024-11-25): text units -> noun-phrase
concepts (``index.concepts``, no LLM) -> ``(:Chunk)-[:HAS_CONCEPT]->(:Concept)`` and
``(:Concept)-[:CO_OCCURS {weight}]-(:Concept)`` -> hierarchical Leiden over the concept graph
-> ``:Community`` nodes of the general scope, as the full index has them, but **no reports**:
a query that needs one builds it then (``query.lazy_reports``). Zero LLM calls.

Resumable like the full index: a text unit's concepts and its ``concepts_done`` mark are
written in one transaction; ``graph_dirty`` stays set until the communities are rebuilt.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

from ..config import Settings
from ..db import Graph, Record
from ..errors import ConfigError, InputError
from ..model import GENERAL, Progress
from .communities import Clusterer, Community, walk
from .concepts import extract_concepts
from .gds import Gds

UNITS_PER_WRITE = 200  # text units merged per transaction (group commit)
log = logging.getLogger(__name__)


def index_method(graph: Graph) -> str | None:
    """'lazy', 'full', or None for a graph without an index yet."""
    return graph.run("index/index_method")[0]["method"]


def planned_method(graph: Graph, settings: Settings) -> str:
    """What this ingest builds: 'lazy' (asked for with ``INDEX_METHOD=lazy`` / ``ingest
    --lazy``, or ``auto`` on a graph holding a lazy index: a plain `ingest`, ``--resume`` or
    ``documents delete --rebuild`` keeps it lazy), 'upgrade' (``INDEX_METHOD=full`` / ``ingest
    --full`` on a lazy graph: ``upgrade_to_full`` first, then the full pipeline) or 'full'.
    Raises InputError for --lazy on a full index."""
    held = index_method(graph)
    asked = settings.index.method
    if asked == "lazy" and held == "full":
        raise InputError("the graph holds a full index (LLM-extracted entities): `neo4j-retag "
                         "reset` first to build a lazy one, or ingest without --lazy")
    if asked == "full" and held == "lazy":
        return "upgrade"
    return "lazy" if asked == "lazy" or held == "lazy" else "full"


def upgrade_to_full(graph: Graph, outcomes: list[str]) -> int:
    """A lazy graph becomes a full one: its concepts and co-occurrences go, every text unit is
    left to the LLM extraction (``extracted`` is never set by the lazy index), the concept
    communities are rebuilt from entities (their on-demand reports are archived as any
    community's are) and ``Meta.index_method`` is 'full' from now on, so an interrupted
    upgrade is resumed by a plain ``ingest --resume``. Returns the concepts removed."""
    removed = graph.run("index/concept_counts")[0]["nodes"]
    graph.run_script("index/lazy_to_full")
    outcomes.append(f"lazy index turned into the full index: {removed} concepts removed, "
                    "every text unit goes to the LLM extraction")
    return removed


def concept_rows(rows: list[Record]) -> list[Record]:
    """Each text unit's concepts and co-occurring pairs (key order), ready to merge."""
    out = []
    for r in rows:
        found = extract_concepts(r["text"] or "")
        keys = sorted({c.key for c in found})
        out.append({"chunk_id": r["id"],
                    "concepts": [{"key": c.key, "name": c.name, "kind": c.kind,
                                  "count": c.count} for c in found],
                    "pairs": [list(p) for p in itertools.combinations(keys, 2)]})
    return out


def extract_pending_concepts(graph: Graph, progress: Progress,
                             empty: list[str] | None = None) -> int:
    """Concepts of every text unit without them; returns the number of text units done. The
    ids of those that gave no concept (no word of any script recurs or stands out) are
    appended to ``empty``."""
    pending = graph.run("index/lazy_pending_chunks")
    task = "text units (concepts)"
    progress(task, 0, len(pending))
    for start in range(0, len(pending), UNITS_PER_WRITE):
        batch = pending[start:start + UNITS_PER_WRITE]
        rows = concept_rows(batch)
        if empty is not None:
            empty += [r["chunk_id"] for r in rows if not r["concepts"]]
        graph.run("index/merge_concepts", rows=rows)
        progress(task, len(batch), None)
    return len(pending)


class ConceptGds(Gds):
    """Projections of the concept graph (CO_OCCURS) instead of the entity graph (RELATED)."""

    def __init__(self, graph: Graph, settings: Settings) -> None:
        if settings.gds.mode == "sessions":
            raise ConfigError("the lazy index runs Leiden in the database's GDS plugin: "
                              "GDS_MODE=sessions is not supported with INDEX_METHOD=lazy yet")
        super().__init__(graph, settings)

    def project(self, name: str, labels: list[str]) -> tuple[Any, int]:
        g, result = self.client.graph.project.cypher(
            self.graph.cypher("index/gds_project_concepts"), name=name)
        return g, int(result.relationship_count)

    def project_groups(self, name: str, groups: list[Record]) -> tuple[Any, set[str]]:
        row = self.graph.run("index/gds_project_concept_groups", name=name, groups=groups)[0]
        return self.client.graph.get(name), set(row["linked"])

    def keys_by_id(self, ids: list[int]) -> list[Record]:
        return self.graph.run("index/concept_keys_by_id", ids=ids)


class ConceptClusterer(Clusterer):
    """The general hierarchy of the lazy index: Leiden with intermediate communities over the
    concept graph, made nested, oversized leaves split and short leaves carried down exactly
    as for entities (``index.communities``)."""

    LABEL = "Concept"

    def __init__(self, graph: Graph, settings: Settings) -> None:
        super().__init__(graph, settings, ConceptGds(graph, settings))

    def _counts(self, label: str) -> Record:
        return self.graph.run("index/concept_counts")[0]

    def _keys(self, label: str) -> list[str]:
        return [r["key"] for r in self.graph.run("index/concept_keys")]

    def _leiden(self, g: Any, label: str, scope: str) -> dict[str, list[int]]:
        # streamed: concepts keep no community property of their own
        return self.gds.leiden_stream(g, [label], intermediate=True)

    def write(self, roots: list[Community], scope: str = GENERAL) -> list[Community]:
        # as Clusterer.write: entity reports are archived (kept for a full index again), and
        # new ids come above every id ever given, so a cited id never names another community
        self.graph.run_batched("index/archive_communities", scope=GENERAL)
        comms = walk(roots)
        next_id = self.graph.run("index/next_community_id")[0]["next"]
        for i, c in enumerate(comms):
            c.id = next_id + i
        parents = {child.id: c.id for c in comms for child in c.children}
        rows = [{"id": c.id, "level": c.level, "members": c.members, "carried": c.carried,
                 "parent": parents.get(c.id)} for c in comms]
        self.graph.write("index/write_concept_communities", rows)
        self.graph.run("index/set_index_meta", props={"next_community_id": next_id + len(comms)})
        return comms


def build_lazy(graph: Graph, settings: Settings, progress: Progress,
               outcomes: list[str]) -> tuple[int, bool]:
    """Concepts of the pending text units, then the concept communities when the graph
    changed. Returns (text units given concepts now, communities rebuilt)."""
    empty: list[str] = []
    done = extract_pending_concepts(graph, progress, empty)
    if empty:
        outcomes.append(f"{len(empty)} of {done} text units gave no concept (no name, no "
                        f"recurring word or phrase): {', '.join(empty[:5])}"
                        + (f" and {len(empty) - 5} more" if len(empty) > 5 else ""))
        log.warning("%d text units gave no concept: %s", len(empty), ", ".join(empty[:20]))
    counts = graph.run("index/concept_counts")[0]
    outcomes.append(f"lazy index: {counts['nodes']} concepts, {counts['relationships']} "
                    "co-occurrences; no LLM call (community reports are built when a query "
                    "needs them)")
    if not counts["nodes"]:
        outcomes.append("no concepts found: communities skipped")
        return done, False
    if graph.run("index/index_meta")[0]["graph_dirty"] is False:
        return done, False
    progress("communities (Leiden)", 0, 1)
    clusterer = ConceptClusterer(graph, settings)
    clusterer.write(clusterer.hierarchy())
    graph.run("index/set_index_meta", props={"graph_dirty": False, "topics_dirty": True,
                                             "index_method": "lazy"})
    progress("communities (Leiden)", 1, None)
    return done, True
