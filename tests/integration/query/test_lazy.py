"""`ask --method lazy` and reports on demand on the real Neo4j + GDS, with the scripted LLM
double (and one run with the real local LLM, marked llm)."""

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from neo4j_retag.cli import main
from neo4j_retag.errors import LevelError
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.model import Query
from neo4j_retag.query import answer
from neo4j_retag.query.lazy import LAZY, LazyOptions, NothingRelevantError
from tests.conftest import double_vars, ingest, neo4j_vars

pytestmark = pytest.mark.integration
SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-corpus"
QUESTION = "What are the main themes of the harbour plan and the festival?"


def ask(settings, graph, method="lazy", **query):
    async def go():
        async with LLM(settings, Usage()) as llm:
            a = await answer(method, graph, llm, settings, Query(
                question=QUESTION, level=query.pop("level", None), options=LazyOptions(**query)))
            return a, llm.usage
    return asyncio.run(go())


@pytest.fixture
def lazy(settings, graph):
    s = settings.model_copy(update={"index_method": "lazy", "chunk_size": 40,
                                    "chunk_overlap": 8})
    ingest(s, graph, [SAMPLE])
    return s


def passage(body) -> str:
    """The passage a relevance test reads (after the question: the prompt's fixed part first)."""
    return body["messages"][-1]["content"].split("Passage:")[1].lower()


def chunk_ids(graph) -> set[str]:
    return {r["id"] for r in graph.run("query/lazy_units")}


def test_lazy_answers_with_text_unit_citations_that_exist(lazy, graph, double):
    a, usage = ask(lazy, graph, budget=12)
    assert a.citations and all(c.kind == "text_unit" for c in a.citations)
    assert {c.id for c in a.citations} <= chunk_ids(graph)
    assert {c.id for c in a.citations} <= {s.id for s in a.sources}
    assert "[Data: Sources (" in a.answer
    sel = a.trace.lazy_search
    # every text unit relevant (the double says yes): the budget is spent exactly
    assert sel.tests == 12 == double.count("relevance") == usage.stages["relevance"].calls
    assert sel.relevant == 12 and sel.failed_tests == 0
    assert usage.stages["lazy_subqueries"].calls == 1
    assert usage.stages["lazy_claims"].calls == sel.claim_calls >= 1
    assert usage.stages["lazy_answer"].calls == 1
    assert double.count("report") == 0  # lazy reads no report


def test_budget_is_never_exceeded_and_pruning_is_traced(lazy, graph, double):
    n_units = len(chunk_ids(graph))
    assert n_units > 16
    # relevant: only the harbour story's text units
    double.script["relevance"] = lambda b: "Y" if "harbour" in passage(b) else "N"
    uncached = lazy.model_copy(update={"llm_cache": False})  # every test a call
    for budget in (3, 8, n_units + 50):
        before = double.count("relevance")
        a, usage = ask(uncached, graph, budget=budget)
        spent = double.count("relevance") - before
        assert spent == a.trace.lazy_search.tests == usage.stages["relevance"].calls
        assert spent <= min(budget, n_units)
        assert a.trace.lazy_search.relevant >= 1
    assert a.trace.lazy_search.communities_pruned >= 1  # the other stories' communities


def test_nothing_relevant_is_an_honest_no_answer_exit_1(lazy, graph, double):
    double.script["relevance"] = lambda b: "No."
    with pytest.raises(NothingRelevantError, match="no text unit was relevant"):
        ask(lazy, graph, budget=20)
    assert double.count("lazy_claims") == double.count("lazy_answer") == 0
    env = {**neo4j_vars(lazy), **double_vars(lazy)}
    r = CliRunner().invoke(main, ["ask", QUESTION, "--method", "lazy", "--budget", "5"], env=env)
    assert r.exit_code == 1 and "no text unit was relevant" in r.output


def test_failed_tests_and_claims_fail_their_items(lazy, graph, double):
    from tests.llm_double import Fail

    def flaky(body):
        if "harbour" in passage(body):
            raise Fail(500)
        return "yes"
    double.script["relevance"] = flaky
    a, _ = ask(lazy, graph, budget=10)
    assert a.trace.lazy_search.failed_tests >= 1 and a.trace.lazy_search.tests <= 10
    double.script["relevance"] = lambda b: (_ for _ in ()).throw(Fail(500))
    env = {**neo4j_vars(lazy), **double_vars(lazy), "LLM_CACHE": "false"}
    r = CliRunner().invoke(main, ["ask", QUESTION, "--method", "lazy", "--budget", "4"], env=env)
    assert r.exit_code == 1 and "relevance tests failed" in r.output


def test_a_test_is_one_token_after_the_question_and_the_passage_s_best_sentences(lazy, graph,
                                                                                 double):
    s = lazy.model_copy(update={"lazy_test_tokens": 12, "llm_cache": False})
    a, usage = ask(s, graph, budget=6)
    bodies = [b for k, b in double.calls if k == "relevance"]
    assert len(bodies) == 6 == a.trace.lazy_search.tests
    for b in bodies:
        assert b["max_tokens"] == 1 and "response_format" not in b  # any endpoint takes it
        user = b["messages"][-1]["content"]
        # the question before the passage: a local server's cache keeps the fixed prefix
        assert user.index("Question:") < user.index("Passage:")
        assert len(passage(b).split()) <= 16  # the best sentences within 12 tokens
    first = [b["messages"][-1]["content"].split("Passage:")[0] for b in bodies]
    assert len(set(first)) == 1  # the same prefix for every test of one question
    assert a.trace.lazy_search.test_tokens == 12


def test_text_units_are_ranked_by_bm25_and_the_question_s_vector(lazy, graph, double):
    a, usage = ask(lazy, graph, budget=4)
    sel = a.trace.lazy_search
    assert sel.vector_matches > 0 and usage.stages["embed_query"].calls == 1
    off = lazy.model_copy(update={"embeddings": False})
    b, usage = ask(off, graph, budget=4)  # no vectors: BM25 alone, no embedding call
    assert b.trace.lazy_search.vector_matches == 0 and "embed_query" not in usage.stages


def test_enough_relevant_text_units_end_the_tests_before_the_budget(lazy, graph, double):
    s = lazy.model_copy(update={"lazy_enough": 3, "llm_cache": False})
    a, _ = ask(s, graph, budget=30)  # every text unit relevant (the double says Y)
    sel = a.trace.lazy_search
    assert sel.stopped == "enough" and sel.enough == 3
    assert 3 <= sel.tests < 30 and sel.relevant >= 3
    assert a.trace.text_units_retrieved == 3  # the claims of the best-ranked three
    assert {c.id for c in a.sources} <= chunk_ids(graph) and len(a.sources) <= 3
    assert "stopped at 3 relevant (LAZY_ENOUGH)" in "\n".join(LAZY.render(a))


def test_a_time_budget_ends_the_tests(lazy, graph, double):
    s = lazy.model_copy(update={"lazy_seconds": 1e-6, "llm_cache": False})
    a, _ = ask(s, graph, budget=30)
    sel = a.trace.lazy_search
    assert sel.stopped == "seconds" and sel.tests <= 5  # the first batch, then no other
    assert a.citations


def test_lazy_runs_on_a_full_index_too(indexed, graph, double):
    a, _ = ask(indexed, graph, budget=6)
    assert a.citations and {c.id for c in a.citations} <= chunk_ids(graph)
    assert a.trace.lazy_search.tests == 6


def test_reports_on_demand_are_stored_once_and_reused(lazy, graph, double):
    assert not graph.run("query/reports_at_level", scope="general", level=0)
    a, usage = ask(lazy, graph, method="global", level=0)
    built = usage.stages["lazy_report"].calls
    roots = graph.run("query/reports_at_level", scope="general", level=0)
    assert built == len(roots) > 0 and a.trace.reports_retrieved == len(roots)
    assert any("built on demand" in n for n in a.trace.notes)
    lazy_marked = graph.driver.execute_query(
        "MATCH (c:Community {level: 0}) RETURN collect(DISTINCT c.lazy) AS m",
        database_=graph.database).records[0]["m"]
    assert lazy_marked == [True]
    again, usage2 = ask(lazy, graph, method="global", level=0)  # reused: no report call
    assert "lazy_report" not in usage2.stages and again.citations
    # retag reads the same reports (found by a name the double's reports hold)
    double.script["keywords"] = lambda b: json.dumps({"keywords": ["Millbrook"]})
    r, usage3 = ask(lazy, graph, method="retag", level=0)
    assert "lazy_report" not in usage3.stages and r.trace.reports_retrieved >= 1



def test_documents_delete_marks_reports_built_on_demand_stale(lazy, graph, double):
    ask(lazy, graph, method="global", level=0)  # builds the level's reports on demand
    from neo4j_retag.index.delete import delete_documents
    delete_documents(graph, [str(SAMPLE / "harbour-plan.txt")])
    status = "MATCH (c:Community {level: 0}) WHERE c.report_status = $s RETURN count(c) AS n"
    stale = graph.driver.execute_query(status, s="stale", database_=graph.database
                                       ).records[0]["n"]
    assert stale >= 1  # the harbour plan's concepts were in some level-0 community
    again, usage = ask(lazy, graph, method="global", level=0)
    # a stale report is never read: the next query rebuilds exactly those, from what is left
    assert usage.stages["lazy_report"].calls == stale
    assert graph.driver.execute_query(status, s="stale", database_=graph.database
                                      ).records[0]["n"] == 0
    assert again.citations

@pytest.mark.llm
def test_lazy_with_the_real_local_llm(real_settings, real_graph):
    s = real_settings.model_copy(update={"index_method": "lazy"})
    ingest(s, real_graph, [SAMPLE])
    try:
        a, usage = ask(s, real_graph, budget=8)
    except NothingRelevantError:
        pytest.skip("the 135M model judged no text unit relevant")  # honest, not a crash
    assert usage.stages["relevance"].calls + usage.stages["relevance"].cached <= 8
    assert {c.id for c in a.citations} <= chunk_ids(real_graph)
    assert a.answer.strip()


def test_eval_compares_lazy_global_and_retag_on_a_lazy_index(lazy, graph, double, tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("What are the main themes?\nWho matters most in these stories?\n")
    out = CliRunner().invoke(main, ["eval", str(questions), "--methods", "lazy,global,retag",
                                    "--level", "0", "--out", str(tmp_path / "ev"), "--json"],
                             env=double_vars(lazy) | neo4j_vars(lazy))
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["failures"] == [] and len(data["answers"]) == 2 * 3
    assert len(data["win_rates"]) == 3 * 4
    answers = json.loads((tmp_path / "ev" / "answers.json").read_text())
    lazy_answers = [a for a in answers if a["method"] == "lazy"]
    assert len(lazy_answers) == 2 and all(a["citations"] for a in lazy_answers)
    assert all(c["kind"] == "text_unit" for a in lazy_answers for c in a["citations"])
    scores = json.loads((tmp_path / "ev" / "scores.json").read_text())
    assert set(scores["claims"]) == {"lazy", "global", "retag"}
    assert double.count("report") == len(
        graph.run("query/reports_at_level", scope="general", level=0))  # built once, reused


def test_cli_ingest_lazy_then_ask_lazy(settings, graph, double):
    env = {**neo4j_vars(settings), **double_vars(settings)}
    r = CliRunner().invoke(main, ["ingest", str(SAMPLE), "--lazy", "--json", "--quiet"], env=env)
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    # no LLM call; the text units are embedded (issue 19: the embed stage, EMBEDDINGS)
    assert {k for k, v in summary["llm"].items() if v["calls"]} <= {"embed"}
    assert summary["communities_rebuilt"] and summary["embeddings"]["text_units"] > 0
    assert any("lazy index" in o for o in summary["outcomes"])
    r = CliRunner().invoke(main, ["ask", QUESTION, "--method", "lazy", "--budget", "4"], env=env)
    assert r.exit_code == 0, r.output
    assert "lazy search: 4 of 4 relevance tests" in r.output and "text unit" in r.output
    r = CliRunner().invoke(main, ["ask", QUESTION, "--method", "lazy", "--budget", "4",
                                  "--json"], env=env)
    out = json.loads(r.stdout)
    assert out["trace"]["lazy_search"]["tests"] == 4
    assert out["citations"] and out["citations"][0]["kind"] == "text_unit"


def test_a_failed_report_on_demand_is_recorded_and_retried(lazy, graph, double):
    from tests.llm_double import Fail

    double.script["report"] = lambda b: (_ for _ in ()).throw(Fail(500))
    uncached = lazy.model_copy(update={"llm_cache": False})
    with pytest.raises(LevelError):  # no report at the level: the global query fails
        ask(uncached, graph, method="global", level=0)
    failed = graph.driver.execute_query(
        "MATCH (c:Community {level: 0}) RETURN count(CASE WHEN c.report_status = 'failed' "
        "THEN 1 END) AS f, count(c) AS n", database_=graph.database).records[0]
    assert failed["f"] == failed["n"] > 0
    from tests.llm_double import DEFAULTS
    double.script["report"] = DEFAULTS["report"]
    a, usage = ask(uncached, graph, method="global", level=0)  # retried, now stored
    assert usage.stages["lazy_report"].calls == failed["n"] and a.trace.reports_retrieved


def test_auto_on_a_lazy_index_builds_the_reports_of_the_method_it_chose(lazy, graph, double):
    # auto's global choice reads a level's reports: on a lazy index they are built first, as
    # for `--method global` (it failed with "the graph has no community reports")
    double.script["route"] = lambda b: json.dumps({"kind": "global", "reason": "themes"})
    a, usage = ask(lazy, graph, method="auto", level=0)
    assert a.trace.routing.method == "global" and a.trace.reports_retrieved > 0
    assert usage.stages["lazy_report"].calls > 0
    assert any("built on demand" in n for n in a.trace.notes)


def test_topics_build_on_a_lazy_index_says_why_not(lazy, graph, double):
    env = {**neo4j_vars(lazy), **double_vars(lazy)}
    r = CliRunner().invoke(main, ["topics", "build"], env=env)
    # not "run `neo4j-retag ingest` first": the user just did
    assert r.exit_code == 1 and "not built on a lazy index" in r.output, r.output
    a, _ = ask(lazy, graph, method="retag", level=0)
    assert any("a lazy index has no topics" in n for n in a.trace.notes)
    assert not any("topics build" in n for n in a.trace.notes)


def test_cli_quickstart_path_lazy_answer_then_full_index_and_global(settings, graph, double):
    """scripts/quickstart.sh's commands: `ingest --lazy`, `ask --method lazy`, then `ingest
    --full` on the same corpus and `ask --method global` from the reports it built."""
    env = {**neo4j_vars(settings), **double_vars(settings)}
    r = CliRunner().invoke(main, ["ingest", str(SAMPLE), "--lazy", "--full"], env=env)
    assert r.exit_code == 2 and "exclude each other" in r.output
    r = CliRunner().invoke(main, ["ingest", str(SAMPLE), "--lazy", "--quiet"], env=env)
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["ask", QUESTION, "--method", "lazy", "--budget", "4"], env=env)
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["ingest", str(SAMPLE), "--full", "--json", "--quiet"],
                           env=env)
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["graph"]["index_method"] == "full" and summary["graph"]["concepts"] == 0
    assert summary["text_units_extracted"] == summary["graph"]["text_units"] > 0
    assert summary["llm"]["extract"]["calls"] >= 1 and summary["graph"]["community_reports"] > 0
    r = CliRunner().invoke(main, ["ask", QUESTION, "--method", "global", "--level", "0",
                                  "--json"], env=env)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["citations"] and all(c["kind"] == "report" for c in out["citations"])


@pytest.mark.parametrize("method", ["lazy", "retag", "global"])
def test_an_empty_graph_says_run_ingest_before_any_llm_call(settings, graph, double, method):
    # a newcomer's first `ask` on an empty database: lazy advised a larger --budget after a
    # sub-query call, retag paid a keyword expansion before failing
    with pytest.raises(LevelError, match=r"run `neo4j-retag ingest"):
        ask(settings, graph, method)
    assert double.count() == 0
