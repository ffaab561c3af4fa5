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
    """Answers the three statements dynamic selection runs, from TREE."""

    def run(self, name, **p):
        def row(i):
            lv, parent, title = TREE[i]
            return {"id": i, "level": lv, "parent": parent, "title": title,
                    "full_content": f"About {title}.", "rank": 1.0}
        if name == "query/scope_levels":
            return [{"level": lv, "communities": 1, "reports": 1, "stale": 0}
                    for lv in sorted({v[0] for v in TREE.values()})]
        if name == "query/reports_at_level":
            return [row(i) for i in TREE if TREE[i][0] == p["level"]]
        if name == "query/community_children":
            return [row(i) for i in TREE if TREE[i][1] in p["ids"]]
        raise AssertionError(name)


def select(double, tmp_path, rating, **extra):
    double.script["rate"] = lambda b: json.dumps(
        {"rating": rating(b["messages"][-1]["content"]), "reason": "scripted"})
    settings = Settings(openai_base_url=double.base_url, openai_model="double",
                        llm_json_mode="json_schema", llm_cache=False, llm_max_retries=1,
                        neo4j_retag_home=tmp_path, **extra)
    trace = Trace()

    async def go():
        async with LLM(settings, Usage()) as llm:
            return await select_reports(TreeGraph(), llm, settings, "ghosts?", trace)
    reports, ratings = asyncio.run(go())
    return sorted(r.id for r in reports), ratings, trace


def test_children_of_relevant_reports_are_rated_and_replace_their_parent(double, tmp_path):
    got, ratings, trace = select(double, tmp_path, lambda t: 4 if "Ghost" in t else 0)
    assert sorted(ratings) == [1, 2, 11, 12, 111]  # 21 is under an irrelevant root
    assert got == [111]  # 1 -> 11 -> 111; 12 is irrelevant
    sel = trace.selection
    assert sel.model_dump(exclude={"cost"}) == {
        "threshold": 1.0, "rated": 5, "relevant": 1, "failures": 0}
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
