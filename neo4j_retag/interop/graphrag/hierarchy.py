"""Planning GraphRAG's communities and reports: membership, hierarchy, report properties (pure).

:func:`plan_communities` joins ``communities`` and ``community_reports`` on the community
number, drops GraphRAG's dummy community ``-1`` (microsoft/graphrag#1422: a bucket for the
entities Leiden left out, with a report of its own in some releases), then repairs the
hierarchy as :mod:`.repair` describes (nesting, one community per level, every member in a
child, unclustered entities, childless branches carried down) and lists every repair in
``plan.repairs``; a report whose level is not its community's is a warning.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ...community_report import report_markdown
from ...errors import InputError
from ...model import GENERAL
from .repair import (
    Repair,
    add_unclustered,
    carry_down,
    cover_children,
    nest_and_partition,
    parent_of,
    repair,
)
from .tables import ORIGIN, Output, Row
from .values import as_findings, as_float, as_int, as_list, as_str, set_props


@dataclass
class Communities:
    """The planned communities (rows for import_communities / import_parents), the repairs
    made to GraphRAG's hierarchy, and the problems left as they are."""

    communities: list[Row] = field(default_factory=list)
    parents: list[Row] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def membership(out: Output, plan: Communities, by_id: dict[str, str],
               by_title: dict[str, str]) -> tuple[dict[int, list[str]], dict[int, int]]:
    """community -> member keys, and (before 1.0) community -> parent from create_final_nodes."""
    members: dict[int, list[str]] = defaultdict(list)
    if out.has_column("communities", "entity_ids"):
        unknown = 0
        for c in out.tables["communities"]:
            cid = as_int(c.get("community"))
            for eid in as_list(c.get("entity_ids")):
                key = by_id.get(str(eid))
                if key is None:
                    unknown += 1
                elif cid is not None and key not in members[cid]:
                    members[cid].append(key)
        if unknown:
            plan.warnings.append(f"{unknown} community entity_ids name no entity: skipped")
        return members, {}
    nodes = out.tables.get("nodes")
    if not nodes:
        raise InputError("communities.parquet has no entity_ids column and there is no "
                         "create_final_nodes.parquet to take community membership from")
    at: dict[tuple[str, int], int] = {}
    for n in nodes:
        cid, level = as_int(n.get("community")), as_int(n.get("level"))
        key = by_title.get(as_str(n.get("title")) or "")
        if cid is None or cid < 0 or level is None or key is None:
            continue
        at[(key, level)] = cid
        if key not in members[cid]:
            members[cid].append(key)
    votes: dict[int, Counter[int]] = defaultdict(Counter)
    for (key, level), cid in at.items():
        if (key, level - 1) in at:
            votes[cid][at[(key, level - 1)]] += 1
    return members, {cid: v.most_common(1)[0][0] for cid, v in votes.items()}


def report_props(r: Row, title: str) -> Row:
    """A community_reports row -> the report properties of its :Community."""
    findings = as_findings(r.get("findings"))
    rank = as_float(r.get("rank"))
    summary = as_str(r.get("summary")) or ""
    explanation = as_str(r.get("rating_explanation")) or ""
    content = as_str(r.get("full_content")) or report_markdown(
        title, summary, rank, explanation, findings)
    fcj = r.get("full_content_json")
    ok = bool(content.strip())
    return set_props(
        summary=summary, full_content=content, rating=rank, rank=rank,
        rating_explanation=explanation, findings=json.dumps(findings),
        full_content_json=fcj if fcj is None or isinstance(fcj, str) else json.dumps(fcj),
        graphrag_report_id=as_str(r.get("id")), report_status="ok" if ok else "failed",
        report_error=None if ok else "empty report in the GraphRAG output")


def _by_number(table: list[Row]) -> tuple[dict[int, Row], int]:
    """Rows by community number, and how many dummy rows (number < 0) were left out."""
    rows, dummies = {}, 0
    for row in table:
        cid = as_int(row.get("community"))
        if cid is None:
            continue
        if cid < 0:
            dummies += 1
        else:
            rows[cid] = row
    return rows, dummies


def _rows(out: Output, plan: Communities, by_id: dict[str, str],
          by_title: dict[str, str]) -> dict[int, Row]:
    """One row per GraphRAG community (as GraphRAG gave it), dummy rows left out."""
    comms, dummy_c = _by_number(out.tables["communities"])
    reports, dummy_r = _by_number(out.tables["community_reports"])
    if dummy_c or dummy_r:
        plan.repairs.append(repair("dummy", dummy_c + dummy_r, (
            f"dropped {dummy_c} community row(s) and {dummy_r} report(s) numbered -1: GraphRAG's "
            "dummy community for the entities Leiden left out, not a community of the graph "
            "(its entities are treated as unclustered)"), [-1]))
    members, node_parents = membership(out, plan, by_id, by_title)
    has_gid = out.has_column("communities", "community")  # before 1.0 `id` is the number
    rows: dict[int, Row] = {}
    other_level: list[str] = []  # reports whose level is not their community's
    for cid in sorted(set(comms) | set(reports)):
        c, r = comms.get(cid, {}), reports.get(cid, {})
        level, said = as_int(c.get("level")), as_int(r.get("level"))
        if level is not None and said is not None and said != level:
            other_level.append(f"{cid} ({said} for {level})")
        level = said if level is None else level
        if level is None:
            plan.warnings.append(f"community {cid} has no level: skipped")
            continue
        parent = next((p for p in (as_int(c.get("parent")), as_int(r.get("parent")),
                                   node_parents.get(cid)) if p is not None), None)
        keys = list(members.get(cid, []))
        props = set_props(
            scope=GENERAL, level=level, carried=False, origin=ORIGIN,
            parent=parent if parent is not None and parent >= 0 else None,
            size=as_int(c.get("size")) or as_int(r.get("size")) or len(keys),
            graphrag_id=as_str(c.get("id")) if has_gid else None,
            human_readable_id=as_int(c.get("human_readable_id")),
            community_title=as_str(c.get("title")),
            period=as_str(c.get("period")) or as_str(r.get("period")),
            title=as_str(r.get("title")) or as_str(c.get("title")) or f"Community {cid}")
        if r:
            props.update(report_props(r, props["title"]))
        rows[cid] = {"id": cid, "members": keys, "props": props,
                     "children": [x for x in (as_int(v) for v in
                                              as_list(c.get("children") or r.get("children")))
                                  if x is not None]}
    if other_level:
        plan.warnings.append(
            f"{len(other_level)} community reports give another level than the communities "
            f"table (community (report's level for the table's): {', '.join(other_level[:10])}"
            "): imported at the table's level, which the hierarchy follows")
    return rows


def _check_links(rows: dict[int, Row], plan: Communities) -> None:
    """Warnings for parent links the repairs cannot mend (missing parent, level skipped)."""
    for cid, row in rows.items():
        p = row["props"].get("parent")
        if p is None:
            continue
        if p not in rows:
            plan.warnings.append(f"community {cid} names a missing parent {p}")
        elif rows[p]["props"]["level"] != row["props"]["level"] - 1:
            plan.warnings.append(f"community {cid} (level {row['props']['level']}) has parent "
                                 f"{p} at level {rows[p]['props']['level']}")


def plan_communities(out: Output, by_id: dict[str, str], by_title: dict[str, str],
                     entities: list[Row], relationships: list[Row],
                     claims: list[Row]) -> Communities:
    """Communities and parent links from GraphRAG's tables, repaired (see the module).

    ``by_id`` / ``by_title``: GraphRAG entity id / title -> entity key; ``entities``,
    ``relationships``, ``claims``: the planned rows (for unclustered entities and for where an
    entity's relationships are). Raises InputError when membership cannot be read at all.
    """
    plan = Communities()
    rows = _rows(out, plan, by_id, by_title)
    _check_links(rows, plan)
    given = {cid: set(row["children"]) for cid, row in rows.items() if row["children"]}
    derived: dict[int, set[int]] = defaultdict(set)
    for cid in rows:
        if (p := parent_of(rows, cid)) is not None:
            derived[p].add(cid)
    odd = [cid for cid, kids in given.items() if kids != derived.get(cid, set())]
    if odd:
        plan.warnings.append(f"children lists disagree with parent links for communities "
                             f"{odd[:10]}: parent links used")
    neighbours: dict[str, set[str]] = defaultdict(set)
    for r in relationships:
        neighbours[r["source_key"]].add(r["target_key"])
        neighbours[r["target_key"]].add(r["source_key"])
    next_id = max(rows, default=-1) + 1  # above every GraphRAG number, even one dropped below
    plan.repairs += nest_and_partition(rows, neighbours)
    done, next_id = cover_children(rows, entities, claims, next_id)
    plan.repairs += done
    done, next_id = add_unclustered(rows, entities, claims, next_id)
    plan.repairs += done
    done, next_id = carry_down(rows, next_id)
    plan.repairs += done
    if not any(r["props"].get("report_status") for r in rows.values()):
        plan.warnings.append("no community report could be read: `ask` has nothing to use")
    plan.parents = [{"parent": p, "id": cid} for cid in sorted(rows)
                    if (p := parent_of(rows, cid)) is not None]
    plan.communities = [{k: v for k, v in rows[cid].items() if k != "children"}
                        for cid in sorted(rows)]
    return plan
