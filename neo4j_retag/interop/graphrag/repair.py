"""Repairing an imported GraphRAG community hierarchy into the shape our own ingest builds (pure).

Our ingest (:mod:`neo4j_retag.index.communities`; Edge et al. 2024 §3.1.4, ReTAG appendix A.2)
guarantees three things global search and ReTAG rely on: every level is a **partition** (each
entity in exactly one community per level), the levels are **nested** (a community's entities
are all in its parent) and every level **covers** the graph (a leaf above the deepest level is
carried down; an entity without relationships is a community of its own). A GraphRAG output
folder need not hold all three, so the import repairs, in this order:

1. **Nesting** (deepest level first): a child community's entity missing from its parent is
   *added to the parent*. GraphRAG's hierarchical Leiden splits each parent into its children,
   so a child is a subset by construction and the loss is the parent's; the child's report was
   written about that entity, and the finer level decides the coarser one as in
   :func:`~neo4j_retag.index.communities.nested_levels`.
2. **One community per level**: an entity in several communities of one level keeps the one
   its sub-community sits in (after 1.), else the one whose parent holds it, else the one
   holding most of its relationships (Leiden's objective), else the lowest number; it leaves
   the others. A community left with no entity is dropped with its report.
3. **Every member in a child**: a member of a community with children that none of its
   children holds (hierarchical Leiden splits a community into its children, so each member
   is in one) gets a community of its own one level down, a child of that community, whose
   report is its description and claims as in 4. (top level first; the new community is
   childless, so 5. carries it down).
4. **Unclustered entities** (GraphRAG clusters only the largest connected component by default,
   and GraphRAG 1.x/2.x put the rest in a dummy community ``-1``, microsoft/graphrag#1422):
   each gets a level-0 community of its own whose report is its description and claims, as
   :func:`~neo4j_retag.index.report_reuse.composed_props` does for our own tiny
   communities (no LLM call; an entity without a description gets no report). A relationship
   endpoint missing from GraphRAG's entities table gets none: GraphRAG never clustered it and
   there is nothing to report (the plan warns about those).
5. **Carrying down**: a community without children above the deepest level is copied to every
   deeper level (``carried: true``, ``carried_from``: the community copied, the same report),
   like :func:`~neo4j_retag.index.communities.carry_down`. GraphRAG's own global search at
   ``community_level`` L reads every report of level <= L for the same reason
   (``query/indexer_adapters.read_indexer_reports``); a carried copy instead stands for its
   branch exactly once at each level, so a level-L global query misses no branch.

New communities (3., 4. and 5.) are numbered above GraphRAG's largest community number, in a
fixed order (so a second import gives the same ids), and carry ``graphrag_repair`` (the kind)
and ``repair_key`` (what they stand for: an import that would give the id to another thing is
refused as a collision). Each repair kind is one :class:`Repair`.
"""

from __future__ import annotations

import json
from collections import defaultdict

from pydantic import BaseModel

from ...community_report import report_markdown
from ...model import GENERAL
from .tables import ORIGIN, Row
from .values import set_props

# kinds of repair that mean the folder was broken (the others follow from GraphRAG's design)
DEFECTS = {"dummy", "nesting", "duplicate", "emptied", "uncovered"}
EXAMPLES = 10  # community numbers / entity keys listed per repair
_NOT_CARRIED = {"graphrag_id", "graphrag_report_id", "human_readable_id", "graphrag_repair",
                "level", "parent", "size", "carried", "carried_from", "repair_key"}


class Repair(BaseModel):
    """One kind of repair made to GraphRAG's community hierarchy on import.

    ``kind``: ``dummy`` | ``nesting`` | ``duplicate`` | ``emptied`` | ``uncovered`` |
    ``unclustered`` | ``carried``; ``defect``: the folder was broken (not just shaped the way
    GraphRAG makes it); ``count``: rows, entities or copies repaired; ``communities`` /
    ``entities``: the first ones concerned (GraphRAG numbers, or the new ids made here;
    entity keys).
    """

    kind: str
    defect: bool
    count: int
    message: str
    communities: list[int] = []
    entities: list[str] = []


def repair(kind: str, count: int, message: str, communities: list[int] | None = None,
           entities: list[str] | None = None) -> Repair:
    return Repair(kind=kind, defect=kind in DEFECTS, count=count, message=message,
                  communities=sorted(set(communities or []))[:EXAMPLES],
                  entities=list(dict.fromkeys(entities or []))[:EXAMPLES])


def parent_of(rows: dict[int, Row], cid: int) -> int | None:
    """The parent community still in ``rows`` (a missing parent counts as none)."""
    p = rows[cid]["props"].get("parent")
    return p if p in rows and p != cid else None


def _children(rows: dict[int, Row]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = defaultdict(list)
    for cid in sorted(rows):
        p = parent_of(rows, cid)
        if p is not None:
            out[p].append(cid)
    return out


def _by_level(rows: dict[int, Row]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = defaultdict(list)
    for cid in sorted(rows):
        out[rows[cid]["props"]["level"]].append(cid)
    return out


def _keeper(key: str, cids: list[int], rows: dict[int, Row], children: dict[int, list[int]],
            neighbours: dict[str, set[str]]) -> int:
    """Which of ``cids`` (one level) keeps entity ``key``: see the module docstring, 2."""
    below = [c for c in cids if any(key in rows[k]["members"] for k in children[c])]
    cands = below or cids
    above = [c for c in cands if (p := parent_of(rows, c)) is not None
             and key in rows[p]["members"]]
    cands = above or cands
    near = neighbours.get(key, set())
    return min(cands, key=lambda c: (-len(near & set(rows[c]["members"])), c))


def nest_and_partition(rows: dict[int, Row], neighbours: dict[str, set[str]]) -> list[Repair]:
    """Repairs 1 and 2 in place, deepest level first; drops communities left empty."""
    children = _children(rows)
    gained: list[tuple[int, str]] = []
    moved: list[tuple[str, int, list[int]]] = []  # entity, level, communities it left
    had_members = {cid for cid, row in rows.items() if row["members"]}
    changed: set[int] = set()
    for level, cids in sorted(_by_level(rows).items(), reverse=True):
        for cid in cids:
            have = set(rows[cid]["members"])
            for child in children[cid]:
                for key in rows[child]["members"]:
                    if key not in have:
                        rows[cid]["members"].append(key)
                        have.add(key)
                        gained.append((cid, key))
                        changed.add(cid)
        where: dict[str, list[int]] = defaultdict(list)
        for cid in cids:
            for key in rows[cid]["members"]:
                where[key].append(cid)
        for key, at in where.items():
            if len(at) > 1:
                keep = _keeper(key, at, rows, children, neighbours)
                left = [c for c in at if c != keep]
                for c in left:
                    rows[c]["members"].remove(key)
                changed.update(left)
                moved.append((key, level, left))
    out = []
    if gained:
        out.append(repair("nesting", len(gained), (
            f"{len(gained)} entities of a child community were missing from its parent: "
            f"added to the parent (communities {sorted({c for c, _ in gained})[:EXAMPLES]})"),
            [c for c, _ in gained], [k for _, k in gained]))
    if moved:
        levels = sorted({lv for _, lv, _ in moved})
        n_left = sum(len(left) for _, _, left in moved)
        out.append(repair("duplicate", len(moved), (
            f"{len(moved)} entities sat in several communities of one level (levels {levels}): "
            "each kept in one (the one its sub-community or parent holds, else the one holding "
            f"most of its relationships), removed from {n_left} others"),
            [c for _, _, left in moved for c in left], [k for k, _, _ in moved]))
    emptied = sorted(cid for cid in had_members if not rows[cid]["members"])
    for cid in emptied:
        del rows[cid]
    if emptied:
        out.append(repair("emptied", len(emptied), (
            f"{len(emptied)} communities lost every entity to the repairs above: dropped with "
            f"their reports ({emptied[:EXAMPLES]})"), emptied))
    for cid in changed - set(emptied):
        rows[cid]["props"]["size"] = len(rows[cid]["members"])
    return out


def _single_report(entity: Row, claims: list[Row], explanation: str = (
        "one entity GraphRAG left out of its communities (report from its description)")
                   ) -> Row:
    """A one-entity community's report: its description and claims (no LLM call)."""
    props = entity["props"]
    title, summary = props["name"], props.get("description") or ""
    findings = [{"summary": f"{c['props'].get('type') or 'claim'} "
                            f"({c['props'].get('status') or 'unknown'})",
                 "explanation": c["props"].get("description") or ""} for c in claims]
    return set_props(summary=summary, rating=1.0, rank=1.0, rating_explanation=explanation,
                     findings=json.dumps(findings), report_status="ok",
                     full_content=report_markdown(title, summary, 1.0, explanation, findings))


def _claims_by_subject(claims: list[Row]) -> dict[str, list[Row]]:
    about: dict[str, list[Row]] = defaultdict(list)
    for c in claims:
        about[c["subject_key"]].append(c)
    return about


def cover_children(rows: dict[int, Row], entities: list[Row], claims: list[Row],
                   next_id: int) -> tuple[list[Repair], int]:
    """Repair 3: a community of its own, one level down, for each member of a community with
    children that none of them holds. Returns (repairs, next id)."""
    by_key = {e["key"]: e for e in entities}
    about = _claims_by_subject(claims)
    children = _children(rows)
    first, parents, keys, silent = next_id, [], [], 0
    for cid in sorted(rows, key=lambda c: (rows[c]["props"]["level"], c)):
        if not children[cid]:
            continue
        held = {k for child in children[cid] for k in rows[child]["members"]}
        level = rows[cid]["props"]["level"] + 1
        for key in [k for k in rows[cid]["members"] if k not in held]:
            entity = by_key.get(key, {"props": {"name": key}})
            props = set_props(scope=GENERAL, level=level, parent=cid, carried=False,
                              origin=ORIGIN, size=1, graphrag_repair="uncovered",
                              repair_key=f"uncovered:{key}:{level}",
                              title=entity["props"]["name"])
            if entity["props"].get("description"):
                props.update(_single_report(entity, about[key], (
                    f"one entity of community {cid} that none of its sub-communities holds "
                    "(report from its description)")))
            else:
                silent += 1
            rows[next_id] = {"id": next_id, "members": [key], "props": props, "children": []}
            parents.append(cid)
            keys.append(key)
            next_id += 1
    if not keys:
        return [], next_id
    note = f"; {silent} without a description have no report" if silent else ""
    return [repair("uncovered", len(keys), (
        f"{len(keys)} members of a community were in none of its children (GraphRAG splits a "
        "community into its children): each given a community of its own one level down, "
        f"ids {first}..{next_id - 1}, its report its description and claims{note}"),
        parents, keys)], next_id


def add_unclustered(rows: dict[int, Row], entities: list[Row], claims: list[Row],
                    next_id: int) -> tuple[list[Repair], int]:
    """Repair 4: a level-0 community for each entity in none. Returns (repairs, next id)."""
    covered = {key for row in rows.values() for key in row["members"]}
    # a relationship endpoint missing from GraphRAG's entities table has no description to
    # report and was never clustered by GraphRAG either: plan.py warns about those instead
    alone = sorted({e["key"]: e for e in entities
                    if e["key"] not in covered and not e.get("endpoint_only")}.items())
    if not alone:
        return [], next_id
    if not rows:
        return [repair("unclustered", len(alone), (
            f"{len(alone)} entities are in no community and GraphRAG's output has no "
            "community at all: none made (run `neo4j-retag ingest --resume` on a graph "
            "without communities to cluster it)"), entities=[k for k, _ in alone])], next_id
    about = _claims_by_subject(claims)
    silent = []
    first = next_id
    for key, entity in alone:
        props = set_props(scope=GENERAL, level=0, carried=False, origin=ORIGIN, size=1,
                          graphrag_repair="unclustered", repair_key=f"unclustered:{key}",
                          title=entity["props"]["name"])
        if entity["props"].get("description"):
            props.update(_single_report(entity, about[key]))
        else:
            silent.append(key)
        rows[next_id] = {"id": next_id, "members": [key], "props": props, "children": []}
        next_id += 1
    note = f"; {len(silent)} without a description have no report" if silent else ""
    return [repair("unclustered", len(alone), (
        f"{len(alone)} entities were in no community (GraphRAG clusters the largest connected "
        f"component only): each given a level-0 community of its own, ids {first}.."
        f"{next_id - 1}, its report its description and claims{note}"),
        list(range(first, next_id)), [k for k, _ in alone])], next_id


def carry_down(rows: dict[int, Row], next_id: int) -> tuple[list[Repair], int]:
    """Repair 5: copy each childless community down to the deepest level."""
    if not rows:
        return [], next_id
    deepest = max(row["props"]["level"] for row in rows.values())
    children = _children(rows)
    sources = []
    first = next_id
    for cid in sorted(rows, key=lambda c: (rows[c]["props"]["level"], c)):
        node = cid
        while not children[node] and rows[node]["props"]["level"] < deepest:
            src = rows[node]
            props = {k: v for k, v in src["props"].items() if k not in _NOT_CARRIED}
            level = src["props"]["level"] + 1
            props.update(level=level, parent=node, carried=True, carried_from=cid,
                         graphrag_repair="carried", size=len(src["members"]),
                         repair_key=f"carried:{rows[cid]['props'].get('repair_key') or cid}:"
                                    f"{level}")
            rows[next_id] = {"id": next_id, "members": list(src["members"]), "props": props,
                             "children": []}
            children[node].append(next_id)
            if node == cid:
                sources.append(cid)
            node = next_id
            next_id += 1
    if not sources:
        return [], next_id
    return [repair("carried", next_id - first, (
        f"{len(sources)} communities without children above the deepest level ({deepest}) "
        f"carried down as {next_id - first} copies (carried: true, ids {first}..{next_id - 1}, "
        "same report), so every level covers the graph"), sources)], next_id
