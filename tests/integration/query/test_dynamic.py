"""Dynamic community selection (GraphRAG's global search option) on the real Neo4j, with a
scripted LLM that rates one branch of the community tree relevant."""

import asyncio
import json
import re

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import Query
from neo4j_retag.query import METHODS
from tests.conftest import double_vars, neo4j_vars

pytestmark = pytest.mark.integration

# (id, level, parent, title): the Ghost branch 1 -> 11, 12 -> 111; the Money branch 2 -> 21, 22
TREE = [(1, 0, None, "Ghost stories"), (2, 0, None, "Money and trade"),
        (11, 1, 1, "Ghost of Christmas Past"), (12, 1, 1, "Ghost of Marley"),
        (13, 1, 1, "Cratchit household"), (111, 2, 11, "Ghost visits Fezziwig"),
        (21, 1, 2, "Counting-house"), (22, 1, 2, "Debts")]


def build_tree(graph) -> None:
    rows = [{"id": i, "level": lv, "parent": p, "title": t,
             "content": f"# {t}\n\nThis community is about {t}."} for i, lv, p, t in TREE]
    graph.driver.execute_query(
        "UNWIND $rows AS r CREATE (:Community {id: r.id, scope: 'general', level: r.level, "
        "title: r.title, full_content: r.content, summary: r.title, report_status: 'ok', "
        "rank: 5.0})", rows=rows, database_=graph.database)
    graph.driver.execute_query(
        "UNWIND $rows AS r MATCH (p:Community {id: r.parent}), (c:Community {id: r.id}) "
        "CREATE (p)-[:PARENT_OF]->(c)", rows=[r for r in rows if r["parent"]],
        database_=graph.database)


def ghost_rating(body) -> str:
    """4 for a report about a ghost, 0 otherwise."""
    info = body["messages"][-1]["content"].split("Question:")[0]
    return json.dumps({"rating": 4 if "Ghost" in info else 0, "reason": "scripted"})


def mapped_ids(double) -> set[int]:
    return {int(i) for kind, body in double.calls if kind == "map"
            for i in re.findall(r"^(\d+),", body["messages"][-1]["content"], re.M)}


def run(settings, graph, question="What haunts Scrooge?"):
    async def go():
        async with LLM(settings, Usage()) as llm:
            a = await METHODS["global-dynamic"](graph, llm, settings, Query(question=question))
            return a, llm.usage
    return asyncio.run(go())


def test_only_the_relevant_branch_is_mapped(settings, graph, double):
    build_tree(graph)
    double.script["rate"] = ghost_rating
    answer, usage = run(settings, graph)
    # rated: the roots (1, 2), the children of 1 (11, 12, 13), the child of 11 (111) - never
    # the Money branch below its root
    rated = {i for kind, b in double.calls if kind == "rate" for i, _, _, t in TREE
             if f"about {t}." in b["messages"][-1]["content"]}
    assert rated == {1, 2, 11, 12, 13, 111}
    # relevant children replace their parents: 1 -> 11, 12; 11 -> 111
    assert mapped_ids(double) == {12, 111}
    tr = answer.trace
    assert {c.id for c in tr.context} == {12, 111}
    assert all(c.rating == 4 for c in tr.context)
    assert tr.selection.rated == 6 and tr.selection.relevant == 2
    assert tr.selection.cost.calls == 6 == usage.stages["rate"].calls
    assert tr.selection.cost.prompt_tokens == usage.stages["rate"].prompt_tokens > 0
    assert "map" in usage.stages and usage.stages["map"].calls >= 1  # counted apart
    assert any(c.cited for c in tr.context)  # the double's reduce cites what it was given


def test_nothing_relevant_rates_the_next_levels_then_says_so(settings, graph, double):
    build_tree(graph)
    double.script["rate"] = lambda b: json.dumps({"rating": 0, "reason": "no"})
    answer, usage = run(settings, graph)
    # level 0 (2), then every report of level 1 (5), then of level 2 (1): DYNAMIC_MAX_LEVEL 2
    assert usage.stages["rate"].calls == 8
    assert double.count("map") == 0
    assert any("no community report was rated relevant" in n for n in answer.trace.notes)
    assert answer.trace.context == []


def test_threshold_is_configurable(settings, graph, double):
    build_tree(graph)
    double.script["rate"] = lambda b: json.dumps({"rating": 2, "reason": "partly"})
    strict = settings.model_copy(update={"dynamic_threshold": 3})
    answer, _ = run(strict, graph)
    assert answer.trace.selection.relevant == 0
    answer, _ = run(settings, graph)  # default threshold 1: everything, leaves replace roots
    assert {c.id for c in answer.trace.context} == {111, 12, 13, 21, 22}


def test_ask_dynamic_cli_json_and_terminal(settings, graph, double):
    build_tree(graph)
    double.script["rate"] = ghost_rating
    env = double_vars(settings) | neo4j_vars(settings)
    out = CliRunner().invoke(main, ["ask", "What haunts Scrooge?", "--method", "global",
                                    "--dynamic", "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["trace"]["method"] == "global-dynamic"
    assert {c["id"] for c in data["trace"]["context"]} == {12, 111}
    assert data["trace"]["llm_stages"]["rate"]["calls"] == 6
    out = CliRunner().invoke(main, ["ask", "What haunts Scrooge?", "--method", "global",
                                    "--dynamic"], env=env)
    assert out.exit_code == 0, out.output
    assert "dynamic selection: rated 6 reports, 2 relevant" in out.output
    assert "Ghost visits Fezziwig" in out.output  # the context table
    bad = CliRunner().invoke(main, ["ask", "q", "--method", "rag", "--dynamic"], env=env)
    assert bad.exit_code == 2 and "--dynamic goes with --method global" in bad.output
