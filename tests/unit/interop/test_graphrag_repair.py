"""GraphRAG import: a broken community hierarchy is repaired into the shape our ingest builds
(every level a partition, nested, covering the graph), and every repair is reported."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from neo4j_retag.interop.graphrag.plan import plan_import
from neo4j_retag.interop.graphrag.repair import (
    add_unclustered,
    carry_down,
    cover_children,
    nest_and_partition,
)
from neo4j_retag.interop.graphrag.tables import read_output
from tests.graphrag_fixture import write_broken_fixture, write_uncovered_fixture

REAL_3X = Path(__file__).resolve().parents[2] / "data" / "graphrag-output-3x"


def _row(cid: int, level: int, parent: int | None, members: list[str], **props) -> dict:
    return {"id": cid, "members": members, "children": [],
            "props": {"level": level, "parent": parent, "title": f"C{cid}", **props}}


def _levels(plan) -> dict[int, dict[int, set[str]]]:
    out: dict[int, dict[int, set[str]]] = defaultdict(dict)
    for c in plan.communities:
        out[c["props"]["level"]][c["id"]] = set(c["members"])
    return out


def assert_like_our_ingest(plan) -> None:
    """Every level partitions the clustered entities; every child is inside its parent."""
    clustered = {e["key"] for e in plan.entities if not e.get("endpoint_only")}
    for level, comms in _levels(plan).items():
        keys = [k for members in comms.values() for k in members]
        assert len(keys) == len(set(keys)), f"an entity twice at level {level}"
        assert set(keys) == clustered, f"level {level} does not cover the graph"
    members = {c["id"]: set(c["members"]) for c in plan.communities}
    for link in plan.parents:
        assert members[link["id"]] <= members[link["parent"]], link


def test_broken_folder_is_repaired_and_every_repair_reported(tmp_path):
    plan = plan_import(read_output(write_broken_fixture(tmp_path / "broken")))
    assert_like_our_ingest(plan)
    assert not plan.warnings, plan.warnings
    repairs = {r.kind: r for r in plan.repairs}
    assert list(repairs) == ["dummy", "nesting", "duplicate", "unclustered", "carried"]
    assert [r.defect for r in plan.repairs] == [True, True, True, False, False]
    comms = {c["id"]: c for c in plan.communities}
    # the dummy row -1 and its report are gone; its entity GHOST is unclustered like BELLE
    assert -1 not in comms and repairs["dummy"].count == 2
    assert all(c["props"]["title"] != "Dummy community" for c in plan.communities)
    # nesting: LONDON (in child 3) was missing from parent 0, which gains it
    assert repairs["nesting"].entities == ["london"] and repairs["nesting"].communities == [0]
    assert comms[0]["members"] == ["scrooge", "marley", "fezziwig", "london"]
    assert comms[0]["props"]["size"] == 4
    # MARLEY sat in 2 and 3 (level 1): 2 holds its sub-community 5, so 3 loses it
    assert repairs["duplicate"].entities == ["marley"] and repairs["duplicate"].communities == [3]
    assert comms[3]["members"] == ["fezziwig", "london"] and comms[3]["props"]["size"] == 2
    # unclustered entities get level-0 communities above GraphRAG's largest number (5)
    assert repairs["unclustered"].entities == ["belle", "ghost"]
    assert repairs["unclustered"].communities == [6, 7]
    belle = comms[6]["props"]
    assert comms[6]["members"] == ["belle"] and belle["level"] == 0
    assert belle["report_status"] == "ok" and belle["summary"] == "Scrooge's former fiancee"
    assert belle["graphrag_repair"] == "unclustered" and belle["title"] == "BELLE"
    # childless communities above level 2 are carried down, ids after the new level-0 ones
    assert repairs["carried"].communities == [1, 3, 6, 7] and repairs["carried"].count == 7
    carried = {c["id"]: c["props"] for c in plan.communities if c["props"]["carried"]}
    assert sorted(carried) == list(range(8, 15))
    assert (carried[8]["level"], carried[8]["parent"], carried[8]["carried_from"]) == (1, 1, 1)
    assert (carried[9]["level"], carried[9]["parent"], carried[9]["carried_from"]) == (2, 8, 1)
    assert (carried[14]["level"], carried[14]["parent"], carried[14]["carried_from"]) == (2, 3, 3)
    # a carried copy holds the same report, but none of GraphRAG's ids
    source = comms[1]["props"]
    assert carried[9]["full_content"] == source["full_content"]
    assert carried[9]["title"] == "The Cratchit family" and carried[9]["report_status"] == "ok"
    assert "graphrag_id" not in carried[9] and "graphrag_report_id" not in carried[9]
    assert plan.counts()["communities"] == 15 and plan.counts()["community_reports"] == 15
    # the same folder gives the same ids again (a second import merges, never duplicates)
    again = plan_import(read_output(tmp_path / "broken"))
    assert [(c["id"], c["members"]) for c in again.communities] == \
        [(c["id"], c["members"]) for c in plan.communities]


def test_a_level_query_sees_every_branch(tmp_path):
    """Each level's reports cover every entity: the childless Cratchit branch is at level 1."""
    plan = plan_import(read_output(write_broken_fixture(tmp_path / "broken")))
    at_1 = {c["props"]["title"] for c in plan.communities if c["props"]["level"] == 1}
    assert at_1 == {"Scrooge and Marley", "Fezziwig's London", "The Cratchit family", "BELLE",
                    "GHOST"}


def test_duplicate_goes_where_its_relationships_are():
    rows = {0: _row(0, 0, None, ["a", "b", "x"]), 1: _row(1, 0, None, ["c", "d", "x"]),
            2: _row(2, 0, None, ["e", "x"])}
    neighbours = {"x": {"c", "d"}, "c": {"x"}, "d": {"x"}}
    repairs = nest_and_partition(rows, neighbours)
    assert [r.kind for r in repairs] == ["duplicate"]
    assert repairs[0].communities == [0, 2] and repairs[0].entities == ["x"]
    assert rows[1]["members"] == ["c", "d", "x"] and "x" not in rows[0]["members"]
    # no relationship evidence: the lowest number keeps it; one left empty is dropped
    rows = {3: _row(3, 0, None, ["y", "z"]), 4: _row(4, 0, None, ["y"])}
    repairs = nest_and_partition(rows, {})
    assert list(rows) == [3] and [r.kind for r in repairs] == ["duplicate", "emptied"]
    assert repairs[1].communities == [4]


def test_nesting_moves_the_entity_up_the_whole_branch():
    """A grandchild's entity missing from both ancestors joins both, and leaves the community
    it sat in at the parents' levels (the finer level decides, as in nested_levels)."""
    rows = {0: _row(0, 0, None, ["a"]), 1: _row(1, 0, None, ["b", "g"]),
            2: _row(2, 1, 0, ["a"]), 3: _row(3, 1, 1, ["b", "g"]),
            4: _row(4, 2, 2, ["a", "g"])}
    repairs = nest_and_partition(rows, {})
    assert rows[0]["members"] == ["a", "g"] and rows[2]["members"] == ["a", "g"]
    assert rows[1]["members"] == ["b"] and rows[3]["members"] == ["b"]
    kinds = {r.kind: r for r in repairs}
    assert kinds["nesting"].count == 2 and kinds["duplicate"].communities == [1, 3]


def test_unclustered_without_description_or_communities():
    entities = [{"key": "a", "props": {"name": "A", "description": "About A"}},
                {"key": "b", "props": {"name": "B", "description": ""}},
                {"key": "ghost", "endpoint_only": True, "props": {"name": "GHOST"}}]
    claims = [{"subject_key": "a", "props": {"type": "FACT", "status": "TRUE",
                                             "description": "A did it"}}]
    rows = {0: _row(0, 0, None, ["c"])}
    repairs, next_id = add_unclustered(rows, entities, claims, 1)
    assert next_id == 3 and repairs[0].entities == ["a", "b"]
    assert "1 without a description have no report" in repairs[0].message
    assert json.loads(rows[1]["props"]["findings"]) == [
        {"summary": "FACT (TRUE)", "explanation": "A did it"}]
    assert rows[1]["props"]["rating"] == 1.0 and "About A" in rows[1]["props"]["full_content"]
    assert "report_status" not in rows[2]["props"]
    # GraphRAG made no community at all: nothing is invented, the report says why
    repairs, next_id = add_unclustered({}, entities, claims, 0)
    assert next_id == 0 and "no community at all: none made" in repairs[0].message


def test_carry_down_chains_copies_to_the_deepest_level():
    rows = {0: _row(0, 0, None, ["a", "b"]), 1: _row(1, 0, None, ["c"], summary="s"),
            2: _row(2, 1, 0, ["a", "b"]), 3: _row(3, 2, 2, ["a"]), 4: _row(4, 2, 2, ["b"])}
    repairs, next_id = carry_down(rows, 10)
    assert next_id == 12 and repairs[0].communities == [1]
    assert [(rows[i]["props"]["level"], rows[i]["props"]["parent"]) for i in (10, 11)] == [
        (1, 1), (2, 10)]
    assert rows[11]["props"]["summary"] == "s" and rows[11]["members"] == ["c"]
    assert carry_down(rows, 12) == ([], 12)  # already carried: nothing to do


def test_members_no_child_holds_get_a_community_one_level_down(tmp_path):
    """Community 0 has child 2 only, which leaves FEZZIWIG and LONDON out: level 1 covered
    nothing of them (a level-1 query never read them). Each gets a level-1 child of 0."""
    plan = plan_import(read_output(write_uncovered_fixture(tmp_path / "uncovered")))
    assert_like_our_ingest(plan)
    repairs = {r.kind: r for r in plan.repairs}
    assert list(repairs) == ["uncovered", "carried"] and repairs["uncovered"].defect
    assert repairs["uncovered"].entities == ["fezziwig", "london"]
    assert repairs["uncovered"].communities == [0] and repairs["uncovered"].count == 2
    made = {c["id"]: c for c in plan.communities if c["props"].get("graphrag_repair")
            == "uncovered"}
    assert sorted(made) == [3, 4]  # above GraphRAG's largest number (2)
    fezziwig = made[3]["props"]
    assert made[3]["members"] == ["fezziwig"] and fezziwig["level"] == 1
    assert fezziwig["parent"] == 0 and {"parent": 0, "id": 3} in plan.parents
    assert fezziwig["report_status"] == "ok" and "kind old master" in fezziwig["full_content"]
    assert "sub-communities" in fezziwig["rating_explanation"]


def test_a_report_at_another_level_than_its_community_is_a_warning(tmp_path):
    plan = plan_import(read_output(write_uncovered_fixture(tmp_path / "uncovered")))
    assert plan.warnings == [
        "1 community reports give another level than the communities table (community "
        "(report's level for the table's): 1 (1 for 0)): imported at the table's level, "
        "which the hierarchy follows"]
    assert next(c for c in plan.communities if c["id"] == 1)["props"]["level"] == 0


def test_cover_children_goes_top_down_and_names_silent_members():
    rows = {0: _row(0, 0, None, ["a", "b", "c"]), 1: _row(1, 1, 0, ["a"]),
            2: _row(2, 2, 1, [])}
    entities = [{"key": "b", "props": {"name": "B", "description": "About B"}},
                {"key": "c", "props": {"name": "C", "description": ""}}]
    repairs, next_id = cover_children(rows, entities, [], 5)
    assert next_id == 8 and repairs[0].entities == ["b", "c", "a"]
    assert [(rows[i]["members"], rows[i]["props"]["level"], rows[i]["props"]["parent"])
            for i in (5, 6, 7)] == [(["b"], 1, 0), (["c"], 1, 0), (["a"], 2, 1)]
    assert "2 without a description have no report" in repairs[0].message  # c, and a
    assert "report_status" not in rows[6]["props"]
    assert cover_children(rows, entities, [], 8) == ([], 8)  # covered now: nothing to do


def test_real_graphrag_3x_output_needs_only_the_unclustered_repair():
    plan = plan_import(read_output(REAL_3X))
    assert not plan.warnings, plan.warnings
    assert [(r.kind, r.count, r.defect) for r in plan.repairs] == [("unclustered", 14, False)]
    assert_like_our_ingest(plan)
