"""Dynamic community selection's walk down the community tree, with an in-memory graph and
the scripted LLM double (the real-Neo4j version is tests/integration/query/test_dynamic.py)."""

import asyncio
import json

from neo4j_retag.config import Settings
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import Trace
from neo4j_retag.query.dynamic import select_reports
from tests.llm_double import Fail

# id: (level, parent, title)
TREE = {1: (0, None, "Ghosts"), 2: (0, None, "Money"), 11: (1, 1, "Ghost A"),
        12: (1, 1, "Trade B"), 21: (1, 2, "Ghost C"), 111: (2, 11, "Ghost D")}


class TreeGraph:
    """Answers the three statements dynamic selection runs, from a tree like TREE."""

    def __init__(self, tree=TREE):
        self.tree = tree

    def run(self, name, **p):
        tree = self.tree

        def row(i):
            lv, parent, title = tree[i]
            return {"id": i, "level": lv, "parent": parent, "title": title,
                    "full_content": f"About {title}.", "rank": 1.0,
                    "summary": f"In short: {title}." if i != 12 else None}
        if name == "query/scope_levels":
            return [{"level": lv, "communities": 1, "reports": 1, "stale": 0}
                    for lv in sorted({v[0] for v in tree.values()})]
        if name == "query/reports_at_level":
            return [row(i) for i in tree if tree[i][0] == p["level"]]
        if name == "query/community_children":
            return [row(i) for i in tree if tree[i][1] in p["ids"]]
        raise AssertionError(name)


def select(double, tmp_path, rating, tree=TREE, graph=None, **extra):
    double.script["rate"] = lambda b: json.dumps(
        {"rating": rating(b["messages"][-1]["content"]), "reason": "scripted"})
    settings = Settings(openai_base_url=double.base_url, openai_model="double",
                        llm_json_mode="json_schema", llm_cache=False, llm_max_retries=1,
                        neo4j_retag_home=tmp_path, **extra)
    trace = Trace()

    async def go():
        async with LLM(settings, Usage()) as llm:
            return await select_reports(graph or TreeGraph(tree), llm, settings, "ghosts?",
                                        trace)
    reports, ratings = asyncio.run(go())
    return sorted(r.id for r in reports), ratings, trace


def test_children_of_relevant_reports_are_rated_and_replace_their_parent(double, tmp_path):
    got, ratings, trace = select(double, tmp_path, lambda t: 4 if "Ghost" in t else 0)
    assert sorted(ratings) == [1, 2, 11, 12, 111]  # 21 is under an irrelevant root
    assert got == [111]  # 1 -> 11 -> 111; 12 is irrelevant
    sel = trace.selection
    assert sel.model_dump(exclude={"cost"}) == {
        "threshold": 1.0, "rated": 5, "relevant": 1, "failures": 0, "failure": None,
        "reused": 0}
    assert (sel.cost.calls, sel.cost.cached, sel.cost.failed) == (5, 0, 0)  # the rating calls
    assert sel.cost.prompt_tokens > 0


def test_nothing_above_the_threshold_rates_the_next_levels(double, tmp_path):
    got, ratings, trace = select(double, tmp_path, lambda t: 2, dynamic_threshold=3)
    assert got == [] and sorted(ratings) == [1, 2, 11, 12, 21, 111]  # level by level
    assert sum("rating every report of level" in n for n in trace.notes) == 2
    got, ratings, _ = select(double, tmp_path, lambda t: 2, dynamic_threshold=3,
                             dynamic_max_level=1)
    assert sorted(ratings) == [1, 2, 11, 12, 21]  # not below DYNAMIC_MAX_LEVEL


def test_a_failed_rating_fails_that_report_only(double, tmp_path):
    def rating(text):
        if "Money" in text:
            raise Fail(400)
        return 4
    got, ratings, trace = select(double, tmp_path, rating)
    assert got == [12, 111] and 2 not in ratings
    assert trace.selection.failures == 1
    assert any("rating of report 2 failed" in n for n in trace.notes)


def test_use_summary_rates_each_report_by_its_summary(double, tmp_path):
    seen = []

    def rating(text):
        seen.append(text.split("Information:\n<data>\n", 1)[1].split("\n</data>", 1)[0])
        return 4 if "Ghost" in text else 0
    got, _, trace = select(double, tmp_path, rating, dynamic_use_summary=True)
    assert got == [111]  # the same walk
    assert "In short: Ghosts." in seen and "About Ghosts." not in seen
    assert "About Trade B." in seen  # report 12 has no summary: its full text, noted
    assert "1 rated reports have no summary: rated by their full text" in " ".join(trace.notes)
    seen.clear()
    select(double, tmp_path, rating)  # off (GraphRAG's default): the full text
    assert "About Ghosts." in seen and not any(t.startswith("In short") for t in seen)


# 10 and 20 repeat their parents' reports (communities not split further, as an imported
# index's carried copies and unsplit Leiden communities do); 100 repeats 10 and so 1
COPIES = {1: (0, None, "Ghosts"), 2: (0, None, "Money"), 10: (1, 1, "Ghosts"),
          20: (1, 2, "Money"), 100: (2, 10, "Ghosts"), 101: (2, 10, "Ghost D"),
          102: (2, 10, "Trade")}


def test_a_report_repeating_its_parents_is_not_rated_again_and_passes_the_walk_on(
        double, tmp_path):
    got, ratings, trace = select(double, tmp_path, lambda t: 4 if "Ghost" in t else 0,
                                 tree=COPIES)
    assert got == [101]  # 1 -> (10, 100: the same report) -> 101 replaces 1
    assert sorted(ratings) == [1, 2, 10, 100, 101, 102] and ratings[10] == ratings[1] == 4
    sel = trace.selection
    assert (sel.rated, sel.reused, sel.cost.calls, sel.relevant) == (6, 2, 4, 1)


def test_the_report_a_copy_repeats_stands_for_it(double, tmp_path):
    got, _, trace = select(double, tmp_path, lambda t: 4 if "Ghosts." in t else 0,
                           tree=COPIES)
    assert got == [1]  # its copies 10 and 100 are not selected beside (or instead of) it
    assert trace.selection.cost.calls == 4  # 1, 2, 101, 102


def test_rating_every_report_of_a_level_rates_each_text_once(double, tmp_path):
    _, ratings, trace = select(double, tmp_path, lambda t: 2, tree=COPIES,
                               dynamic_threshold=3)
    assert sorted(ratings) == [1, 2, 10, 20, 100, 101, 102]
    assert trace.selection.cost.calls == 4 and trace.selection.reused == 3


def test_by_summary_a_child_with_its_parents_summary_but_other_text_is_no_copy(
        double, tmp_path):
    # composed reports of nested small communities can share a summary line
    tree = {1: (0, None, "Ghosts"), 10: (1, 1, "Ghosts and more")}

    class SameSummary(TreeGraph):
        def run(self, name, **p):
            return [dict(r, summary="In short: ghosts.") for r in super().run(name, **p)]
    got, _, trace = select(double, tmp_path, lambda t: 4, graph=SameSummary(tree),
                           dynamic_use_summary=True)
    assert got == [10]  # its own text is mapped, in place of its parent's
    assert trace.selection.cost.calls == 1 and trace.selection.reused == 1  # one prompt
