"""Hierarchical Leiden communities with GDS (Edge et al. 2024 §3.1.4; ReTAG appendix A.2).

GDS Leiden with ``includeIntermediateCommunities`` gives one community id per level, finest
first. GraphRAG's level 0 is the root, so levels are reversed; the hierarchy is made strictly
nested (each fine community goes to the coarse community holding most of its entities), leaf
communities larger than ``max_cluster_size`` are split again by Leiden on their own projection,
and a leaf that stops early is carried down so that every level covers every entity.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..db import Graph, Record
from ..model import GENERAL
from .gds import Gds, unique_name
from .report_reuse import membership_hash

MAX_SPLIT_DEPTH = 6


@dataclass
class Community:
    level: int
    members: list[str]
    children: list[Community] = field(default_factory=list)
    carried: bool = False  # a copy of its parent: the leaf stopped early (ReTAG A.2)
    id: int = -1


def nested_levels(assignments: dict[str, list[int]]) -> list[dict[str, int]]:
    """Partitions root-first from GDS's finest-first id lists, strictly nested.

    A fine community whose entities Leiden spread over several coarse communities goes, with
    all its entities, to the coarse community that holds most of them. Consecutive identical
    levels are merged. Returns ``[]`` for no entities.
    """
    if not assignments:
        return []
    depth = max(len(ids) for ids in assignments.values())
    # pad short lists with their finest id (GDS gives every node the same length; be safe)
    fine_first = [{k: (ids[i] if i < len(ids) else ids[0]) for k, ids in assignments.items()}
                  for i in range(depth)]
    levels = list(reversed(fine_first))  # root first
    for lv in range(len(levels) - 1, 0, -1):
        fine, coarse = levels[lv], levels[lv - 1]
        groups: dict[int, list[str]] = defaultdict(list)
        for key, cid in fine.items():
            groups[cid].append(key)
        for keys in groups.values():
            parent = Counter(coarse[k] for k in keys).most_common(1)[0][0]
            for k in keys:
                coarse[k] = parent
    out: list[dict[str, int]] = []
    for part in levels:
        if not out or _partition(out[-1]) != _partition(part):
            out.append(part)
    return out


def _partition(level: dict[str, int]) -> frozenset[frozenset[str]]:
    groups: dict[int, set[str]] = defaultdict(set)
    for k, c in level.items():
        groups[c].add(k)
    return frozenset(frozenset(g) for g in groups.values())


def tree(levels: list[dict[str, int]]) -> list[Community]:
    """Root communities (with children) from nested partitions."""
    roots: list[Community] = []
    by_level: list[dict[int, Community]] = []
    for lv, part in enumerate(levels):
        groups: dict[int, list[str]] = defaultdict(list)
        for key, cid in sorted(part.items()):
            groups[cid].append(key)
        comms = {cid: Community(lv, keys) for cid, keys in groups.items()}
        # ordered by members, not by Leiden's ids (which follow GDS's internal node order):
        # the same partition always gets the same community ids
        for comm in sorted(comms.values(), key=lambda c: c.members):
            if lv == 0:
                roots.append(comm)
            else:
                parent_cid = levels[lv - 1][comm.members[0]]
                by_level[lv - 1][parent_cid].children.append(comm)
        by_level.append(comms)
    return roots


def walk(roots: list[Community]) -> list[Community]:
    """All communities, parents before children."""
    out: list[Community] = []
    stack = list(reversed(roots))
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(reversed(c.children))
    return out


def carry_down(roots: list[Community]) -> None:
    """Copy every leaf above the deepest level down to it, so each level covers every entity."""
    deepest = max((c.level for c in walk(roots)), default=0)
    for c in walk(roots):
        node = c
        while not node.children and node.level < deepest:
            copy = Community(node.level + 1, list(node.members), carried=True)
            node.children.append(copy)
            node = copy


class Clusterer:
    """Runs Leiden through GDS (``index.gds.Gds``: the plugin or an Aura session) for one scope:
    the general graph, or a topic's label. Projection names are unique per run and dropped
    in ``finally``, so concurrent processes never collide in the GDS catalog. A subclass
    clusters other nodes by its LABEL, ``_counts``, ``_keys`` and ``_leiden`` (the lazy
    index's concepts)."""

    LABEL = "Entity"

    def __init__(self, graph: Graph, settings: Settings, gds: Gds | None = None) -> None:
        self.graph = graph
        self.settings = settings
        self.gds = gds or Gds(graph, settings)

    def _leiden_groups(self, groups: list[list[str]]) -> list[dict[str, int]]:
        """Plain Leiden over each group of keys on its own (the groups are disjoint), all in ONE
        projection where the plugin runs: a node label per group, Leiden filtered by it (one
        projection per group cost a projection each). Per group, key -> community id."""
        if self.gds.sessions:  # pragma: no cover - Aura only: one remote projection per group
            return [self._leiden_keys(keys) for keys in groups]
        name = unique_name("retag-split")
        labels = [f"Split{i}" for i in range(len(groups))]
        try:
            g, linked = self.gds.project_groups(name, [
                {"label": lb, "keys": keys} for lb, keys in zip(labels, groups, strict=True)])
            # a group without a relationship inside: each entity is a community of its own
            return [{k: ids[-1] for k, ids in
                     self.gds.leiden_stream(g, [lb], intermediate=False).items()}
                    if lb in linked else {k: i for i, k in enumerate(keys)}
                    for lb, keys in zip(labels, groups, strict=True)]
        finally:
            self.gds.drop(name)

    def _leiden_keys(self, keys: list[str]) -> dict[str, int]:
        """Plain Leiden over just ``keys`` (their own projection); key -> community id."""
        name = unique_name("retag-split")
        try:
            g, relationships = self.gds.project_keys(name, keys)
            if not relationships:
                return {k: i for i, k in enumerate(keys)}
            return {k: ids[-1] for k, ids in
                    self.gds.leiden_stream(g, ["*"], intermediate=False).items()}
        finally:
            self.gds.drop(name)

    def split(self, *comms: Community) -> None:
        """Split leaves larger than ``max_cluster_size`` under ``comms`` by Leiden on each
        leaf's own subgraph (GraphRAG's hierarchical Leiden), up to MAX_SPLIT_DEPTH times.

        Round by round: all oversized leaves of a round share one projection (one per leaf
        cost a projection each, which dominated the communities stage)."""
        limit = self.settings.index.max_cluster_size
        todo = [c for c in walk(list(comms)) if not c.children and len(c.members) > limit]
        for _ in range(MAX_SPLIT_DEPTH):
            if not todo:
                return
            found = []
            for comm, assignment in zip(todo, self._leiden_groups([c.members for c in todo]),
                                        strict=True):
                groups: dict[int, list[str]] = defaultdict(list)
                for key in comm.members:
                    groups[assignment.get(key, -1)].append(key)
                if len(groups) < 2:
                    continue  # Leiden finds no finer structure: keep the leaf as it is
                # ordered by members, not by Leiden's ids (those vary with node numbering)
                comm.children = [Community(comm.level + 1, keys)
                                 for keys in sorted(groups.values())]
                found += [c for c in comm.children if len(c.members) > limit]
            todo = found

    def _leiden(self, g: Any, label: str, scope: str) -> dict[str, list[int]]:
        """Hierarchical Leiden over ``label`` in projection ``g``: key -> ids, finest first."""
        if scope != GENERAL:
            return self.gds.leiden_stream(g, [label], intermediate=True)
        self.gds.leiden_write(g, [label], "communities")
        return {r["key"]: list(r["communities"])
                for r in self.graph.run("index/entity_communities")}

    def _counts(self, label: str) -> Record:
        """``{nodes, relationships}`` of the nodes clustered."""
        return self.graph.run("index/graph_counts", label=label)[0]

    def _keys(self, label: str) -> list[str]:
        return [r["key"] for r in self.graph.run("index/entity_keys", label=label)]

    def hierarchy(self, scope: str = GENERAL, label: str | None = None,
                  projection: Any = None) -> list[Community]:
        """Root communities of ``scope``; the general scope writes ``communities: long[]``.

        ``label`` defaults to the clusterer's node label (LABEL). ``projection`` is an existing
        GDS projection holding ``label`` (topics project once, ``Gds.project``); without one,
        a projection of ``label`` is made and dropped here.
        """
        label = label or self.LABEL
        counts = self._counts(label)
        if not counts["nodes"]:
            return []
        if not counts["relationships"]:
            assignments = {k: [i] for i, k in enumerate(self._keys(label))}
        elif projection is not None:
            assignments = self._leiden(projection, label, scope)
        else:
            name = unique_name(f"retag-{scope}")
            try:
                g, _ = self.gds.project(name, [label])
                assignments = self._leiden(g, label, scope)
            finally:
                self.gds.drop(name)
        roots = tree(nested_levels(assignments))
        self.split(*roots)
        carry_down(roots)
        return roots

    def write(self, roots: list[Community], scope: str = GENERAL) -> list[Community]:
        """Replace ``scope``'s :Community nodes with ``roots``' hierarchy; returns all of them.

        The old communities with a report are archived first (``index/archive_communities``):
        a new community with the same level and members keeps the old one's id, so an id once
        cited never points at another community; the others get ids never given before."""
        self.graph.run_batched("index/archive_communities", scope=scope)
        comms = walk(roots)
        kept = {(r["level"], r["membership"]): r["id"]
                for r in self.graph.run("index/archived_communities", scope=scope)}
        next_id = self.graph.run("index/next_community_id")[0]["next"]
        for c in comms:
            c.id = kept.pop((c.level, membership_hash(c.members)), -1)
        for c in comms:
            if c.id < 0:
                c.id, next_id = next_id, next_id + 1
        parents = {child.id: c.id for c in comms for child in c.children}
        rows = [{"id": c.id, "level": c.level, "members": c.members, "carried": c.carried,
                 "parent": parents.get(c.id), "membership": membership_hash(c.members)}
                for c in comms]
        self.graph.write("index/write_communities", rows, scope=scope)
        self.graph.run("index/set_index_meta", props={"next_community_id": next_id})
        return comms
