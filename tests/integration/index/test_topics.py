"""Topic augmentation and both ask methods on the real Neo4j + GDS with the LLM double."""

import json
import re

import pytest

from neo4j_retag.errors import InputError, LevelError
from neo4j_retag.index.topics import build_topics
from neo4j_retag.llm import run_with_llm as run
from neo4j_retag.model import Query
from neo4j_retag.query.answer.map_reduce import MapFailedError
from neo4j_retag.query.global_search import ask_global
from neo4j_retag.query.retag import MIN_SHARE_P, RetagOptions, ask_retag
from tests.llm_double import default_assign, default_map

pytestmark = pytest.mark.integration



def test_topics_build_labelled_subgraphs_and_reports(indexed, graph, double):
    out = run(indexed, lambda llm: build_topics(graph, llm, indexed))
    names = [t.name for t in out.topics]
    assert "Ghosts and spirits" in names
    assert out.corpus_description
    # the double's reduce cites reports: of no use in a description that prompts read
    assert "[Data:" not in out.corpus_description
    counts = {c.name: c for c in out.counts}
    ghosts = counts["Ghosts and spirits"]
    assert ghosts.entities > 0 and ghosts.communities > 0
    assert ghosts.reports == ghosts.communities
    from neo4j_retag.ops.stats import collect
    st = collect(graph)  # stats count the topic scopes apart from the general one
    assert st["topic_reports"] == sum(c.reports for c in out.counts) > 0
    assert st["topic_communities"] == sum(c.communities for c in out.counts)
    # topic communities live beside the general ones, linked to their topic
    n = graph.driver.execute_query(
        "MATCH (c:Community)-[:OF_TOPIC]->(t:Topic {name: 'Ghosts and spirits'}) "
        "RETURN count(c) AS n").records[0]["n"]
    assert n == ghosts.communities
    # topic mining: one map pass (the mining question, asked once per batch of the level's
    # reports) serves both questions, each with its own reduce
    maps = [body for kind, body in double.calls if kind == "map"]
    assert maps and all("topics that cover the entire corpus" in b["messages"][-1]["content"]
                        for b in maps)
    assert double.count("reduce") == 2


def test_ask_global_and_retag_cite_real_reports(indexed, graph, double):
    run(indexed, lambda llm: build_topics(graph, llm, indexed))
    g = run(indexed, lambda llm: ask_global(graph, llm, indexed,
            Query(question="What are the main themes?", level=0)))
    assert g.citations and g.trace.points_kept > 0
    ids = {r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community) RETURN c.id AS id").records}
    assert all(c.id in ids for c in g.citations)
    # the tiny test graph's topics each hold most of its entities: every topic offered here
    whole = indexed.model_copy(update={"retag_topic_max_share": 1.0})
    r = run(whole, lambda llm: ask_retag(graph, llm, whole,
            Query(question="Ghosts: what did Scrooge see?", level=0,
                  options=RetagOptions(top_p=200))))
    assert r.trace.topic == "Ghosts and spirits" and r.trace.scope.startswith("Topic")
    assert r.trace.keywords == ["ghost", "Christmas"]
    assert r.citations and all(c.id in ids for c in r.citations)
    json.dumps(r.as_dict())  # the whole trace serialises


def test_unparseable_map_zero_scores_and_hostile_question(indexed, graph, double):
    double.script["map"] = lambda b: "no json here at all"
    # every map batch unparseable (after its retries): an error, not the canned no-answer
    with pytest.raises(MapFailedError, match=r"(\d+) of \1 map batches gave no usable points"):
        run(indexed, lambda llm: ask_global(graph, llm, indexed,
            Query(question="themes?", level=0)))
    double.script["map"] = lambda b: '{"points": [{"description": "nothing", "score": 0}]}'
    a = run(indexed, lambda llm: ask_global(graph, llm, indexed,
            Query(question="themes?", level=0)))
    assert a.trace.points_zero > 0 and a.trace.map_parse_failures == 0
    assert "scored above 0" in a.trace.notes[0]
    hostile = 'AND OR NOT "quote" a:b /slash\\ (paren) [x] {y} ~z* ?! && || ^ -- \x00'
    r = run(indexed, lambda llm: ask_retag(graph, llm, indexed,
            Query(question=hostile, level=0, options=RetagOptions(top_p=5))))
    assert r.trace.reports_retrieved <= 5
    r = run(indexed, lambda llm: ask_retag(graph, llm, indexed,
            Query(question="???", level=0, options=RetagOptions(top_p=5))))
    assert r.trace.method == "retag"


def test_unknown_topic_level_and_empty_graph(indexed, graph, double, settings):
    with pytest.raises(InputError, match="unknown topic"):
        run(indexed, lambda llm: ask_retag(graph, llm, indexed,
                Query(question="q", level=0, options=RetagOptions(top_p=5, topic="Nope"))))
    with pytest.raises(LevelError, match="level 9 does not exist"):
        run(indexed, lambda llm: ask_global(graph, llm, indexed, Query(question="q", level=9)))
    graph.driver.execute_query("MATCH (n) DETACH DELETE n")
    with pytest.raises(LevelError, match="neo4j-retag ingest"):
        run(indexed, lambda llm: ask_global(graph, llm, indexed, Query(question="q", level=0)))


def test_duplicate_and_empty_topics_and_coverage(indexed, graph, double):
    # what Qwen2.5-Coder-1.5B mined: a near-duplicate pair and topics no text unit concerns
    double.script["topics_list"] = lambda b: json.dumps({"topics": [
        {"name": "Ghosts and spirits", "description": "the supernatural visitors"},
        {"name": "Ghosts and spirits community", "description": "the same, again"},
        {"name": "Railway timetables", "description": "nothing in this corpus"}]})
    # an isolated root community none of whose entities any text unit labelled with a topic
    graph.driver.execute_query(
        "CREATE (:Entity {key: 'orphan', name: 'Orphan', type: 'unknown'})"
        "-[:IN_COMMUNITY]->(:Community {id: 987654, scope: 'general', level: 0, size: 1, "
        "title: 'Orphan alone', report_status: 'ok', full_content: '# Orphan alone'})")
    out = run(indexed, lambda llm: build_topics(graph, llm, indexed))
    assert [t.name for t in out.topics] == ["Ghosts and spirits"]
    assert out.dropped_topics == ["Railway timetables"]
    assert [c.name for c in out.counts] == ["Ghosts and spirits"]
    # the classifier is offered only topics with a subgraph
    offered = [t["name"] for t in graph.run("query/topics")]
    assert offered == ["Ghosts and spirits"]
    body = next(b for k, b in reversed(double.calls) if k == "assign")
    assert "Railway timetables" in body["messages"][0]["content"]  # it was offered to assign
    uncovered = out.uncovered_root_communities
    assert [r.id for r in uncovered] == [987654] and uncovered[0].title == "Orphan alone"


def test_topics_build_cli_reports_coverage(indexed, graph, double):
    from click.testing import CliRunner

    from neo4j_retag.cli import main
    from tests.conftest import double_vars, neo4j_vars
    # the double's endpoint and embedding model: topics build embeds the topic reports next to
    # vectors of that model (another model would be the one-line mismatch error)
    env = {**double_vars(indexed), **neo4j_vars(indexed)}
    out = CliRunner().invoke(main, ["topics", "build", "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["uncovered_root_communities"] == [] and "dropped_topics" in data
    out = CliRunner().invoke(main, ["topics", "build"], env=env)
    assert "root communities covered by no topic: 0" in out.output
    assert "dropped topic Money and business" in " ".join(out.output.split())
    # ask: a reduce answer that cites nothing is printed as written, its sources apart
    double.script["reduce"] = lambda b: "Here is the answer:\nScrooge meets three spirits."
    out = CliRunner().invoke(main, ["ask", "Who does Scrooge meet?", "--method", "global",
                                    "--level", "0"], env=env)
    assert out.exit_code == 0, out.output
    answer, _, rest = out.output.partition("\nSources: ")
    assert answer.strip() == "Scrooge meets three spirits." and "[Data:" not in answer
    assert rest.startswith("report ") and "not cited" in rest
    out = CliRunner().invoke(main, ["ask", "Who does Scrooge meet?", "--method", "global",
                                    "--level", "0", "--json"], env=env)
    data = json.loads(out.stdout)
    assert data["citations"] == [] and data["sources"] and data["trace"]["chatter_stripped"] == 1


def test_retag_topic_guard_general_arm_share_p_and_keywords(indexed, graph, double):
    run(indexed, lambda llm: build_topics(graph, llm, indexed))
    shares = {t["name"]: t["share"] for t in graph.run("query/topics")}
    assert shares and all(0 < v <= 1 for v in shares.values())
    q = Query(question="Ghosts: what did Scrooge see?", level=0)
    # a topic holding more than RETAG_TOPIC_MAX_SHARE of the entities is not offered: with
    # none left, no classification call is paid and the general graph answers
    cap = min(shares.values()) / 2
    capped = indexed.model_copy(update={"retag_topic_max_share": cap})
    before = double.count("classify")
    r = run(capped, lambda llm: ask_retag(graph, llm, capped, q))
    assert double.count("classify") == before and r.trace.scope == "general"
    assert sum("RETAG_TOPIC_MAX_SHARE" in n for n in r.trace.notes) == len(shares)
    # RETAG_TOPICS=false: the paper's retrieval-only arm, said in the trace
    off = indexed.model_copy(update={"retag_topics": False, "top_p_share": 0.25})
    r = run(off, lambda llm: ask_retag(graph, llm, off, q))
    assert double.count("classify") == before and r.trace.scope == "general"
    assert any("RETAG_TOPICS=false" in n for n in r.trace.notes)
    # TOP_P_SHARE: a quarter of the level's reports (rounded up), but at least MIN_SHARE_P
    n = next(x["reports"] for x in graph.run("query/scope_levels", scope="general")
             if x["level"] == 0)
    assert 1 <= r.trace.reports_retrieved <= max(-(-n // 4), min(n, MIN_SHARE_P))
    # keyword expansion is not shown the corpus description
    corpus = graph.run("query/topics")[0]["corpus_description"]
    assert corpus
    kw = [b for kind, b in double.calls if kind == "keywords"]
    assert kw and corpus not in kw[-1]["messages"][0]["content"]


def test_refused_topic_mining_is_never_stored(indexed, graph, double):
    run(indexed, lambda llm: build_topics(graph, llm, indexed))
    before = graph.run("query/topics")
    # every map point scored 0: both mining answers are the no-answer sentence
    double.script["map"] = lambda b: '{"points": [{"description": "nothing", "score": 0}]}'
    topics_calls = double.count("topics")
    fresh = indexed.model_copy(update={"llm_cache": False})  # the first build's replies
    out = run(fresh, lambda llm: build_topics(graph, llm, fresh))
    assert out.failed and not out.topics and not out.mined
    assert any("no answer" in f.line() for f in out.failed)
    assert double.count("topics") == topics_calls  # no topic list asked of a no-answer
    after = graph.run("query/topics")
    assert after == before  # the last good topics and corpus description stay
    assert all("unable to answer" not in (t["corpus_description"] or "") for t in after)
    assert graph.run("index/index_meta_all")[0]["topics_dirty"] is True  # the next build mines
    double.script["map"] = default_map
    again = run(fresh, lambda llm: build_topics(graph, llm, fresh))
    assert again.topics and not again.failed


def test_ingest_builds_no_topics_when_retag_reads_none(settings, graph, double, tmp_path):
    from neo4j_retag.index.pipeline import run_ingest
    from tests.conftest import corpus
    off = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20,
                                      "retag_topics": False})
    out = run(off, lambda llm: run_ingest(graph, llm, off, [corpus(tmp_path, 2)]))
    assert out.topics is None and double.count("topics") == 0 and double.count("map") == 0
    assert any("topics not built: RETAG_TOPICS=false" in o for o in out.outcomes)
    assert graph.run("query/topics") == []


def test_a_question_spanning_two_topics_reads_both_subgraphs(indexed, graph, double):
    def two_topics(body):  # every text unit concerns the first two topics: two subgraphs
        out = json.loads(default_assign(body))
        names = re.findall(r"^- ([^:\n]+):", body["messages"][0]["content"], re.M)[:2]
        return json.dumps({k: names for k in out})

    double.script["assign"] = two_topics
    run(indexed, lambda llm: build_topics(graph, llm, indexed))
    topics = graph.run("query/topics")
    assert len(topics) >= 2
    two = [t["name"] for t in topics[:2]]
    double.script["classify"] = lambda body: json.dumps({"topics": two})
    whole = indexed.model_copy(update={"retag_topic_max_share": 1.0})
    r = run(whole, lambda llm: ask_retag(graph, llm, whole,
            Query(question="Ghosts: what did Scrooge see?", level=0,
                  options=RetagOptions(top_p=200))))
    assert r.trace.topic == two[0] and r.trace.scope == topics[0]["label"]
    assert any("spans 2 topics" in n for n in r.trace.notes)
    # the map read reports of both topic subgraphs, each report once
    scopes = {row["scope"] for row in graph.driver.execute_query(
        "MATCH (c:Community) WHERE c.id IN $ids RETURN DISTINCT c.scope AS scope",
        ids=[int(c.id) for c in r.trace.context]).records}
    assert scopes == {topics[0]["label"], topics[1]["label"]}
    assert len(r.trace.context) == len({c.id for c in r.trace.context})


def test_a_topic_holding_most_of_the_graph_is_split_into_narrower_ones(indexed, graph, double):
    split_on = indexed.model_copy(update={"topic_split": True})
    turn = iter(range(10_000))

    def share_out(body):  # the narrower topics share the text units out, turn by turn
        names = re.findall(r"^- ([^:\n]+):", body["messages"][0]["content"], re.M)
        if "Marley and the three spirits" not in names:
            return default_assign(body)  # the mined topics: all to the first (the whole graph)
        return json.dumps({"topics": [names[next(turn) % 2]]})

    double.script["assign"] = share_out
    out = run(split_on, lambda llm: build_topics(graph, llm, split_on))
    assert out.split_topics == ["Ghosts and spirits"] and not out.failed
    assert double.count("topic_split") == 1
    names = {c.name: c for c in out.counts}
    assert "Ghosts and spirits" not in names
    for narrower in ("Marley and the three spirits", "Scrooge's counting-house"):
        assert names[narrower].entities > 0 and names[narrower].reports > 0
    # the split prompt was told what the topic covers: the general graph's report titles
    body = next(b for kind, b in double.calls if kind == "topic_split")
    title = graph.run("query/reports_at_level", scope="general", level=0)[0]["title"]
    assert "Ghosts and spirits" in body["messages"][-1]["content"]
    assert title and title in body["messages"][-1]["content"]


def test_a_split_without_narrower_topics_keeps_the_topic_listed_and_fails_nothing(
        indexed, graph, double):
    split_on = indexed.model_copy(update={"topic_split": True})
    double.script["topic_split"] = lambda body: json.dumps({"topics": [
        {"name": "Ghosts and spirits", "description": "the same again"}]})
    out = run(split_on, lambda llm: build_topics(graph, llm, split_on))
    assert out.split_topics == [] and out.unsplit_topics == ["Ghosts and spirits"]
    assert "Ghosts and spirits" in {t.name for t in out.topics} and not out.failed


def test_a_failed_split_call_keeps_the_topic_fails_one_item_and_builds_again(
        indexed, graph, double):
    from tests.llm_double import Fail
    split_on = indexed.model_copy(update={"topic_split": True, "llm_max_retries": 0})

    def refuse(body):
        raise Fail(400, {"error": {"message": "scripted refusal"}})

    double.script["topic_split"] = refuse
    out = run(split_on, lambda llm: build_topics(graph, llm, split_on))
    assert out.split_topics == [] and "Ghosts and spirits" in {t.name for t in out.topics}
    assert [f.item for f in out.failed] == ["split of topic 'Ghosts and spirits'"]
    assert graph.run("index/index_meta_all")[0]["topics_dirty"] is True  # the next build splits


def test_retag_answers_in_one_call_over_the_retrieved_reports(indexed, graph, double):
    q = Query(question="Ghosts: what did Scrooge see?", level=0, options=RetagOptions(top_p=200))
    ids = {r["id"] for r in graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general', level: 0}) RETURN c.id AS id").records}

    def answer(body):  # cites the first report of the table it was shown
        first = re.findall(r"^(\d+),", body["messages"][-1]["content"], re.M)[0]
        return f"Scrooge saw the ghosts. [Data: Reports ({first})]"

    double.script["answer"] = answer
    direct = indexed.model_copy(update={"retag_topics": False, "answer": "one-call"})
    before = double.count()
    r = run(direct, lambda llm: ask_retag(graph, llm, direct, q))
    # keywords, the question's vector when embedded, one answer: no map, no reduce
    assert double.count("map") == double.count("reduce") == 0
    assert double.count("answer") == 1 and double.count() - before <= 3
    assert r.citations and {int(c.id) for c in r.citations} <= ids
    assert {int(c.id) for c in r.sources} == {int(c.id) for c in r.trace.context} <= ids
    assert any(n.startswith("one answer call over") for n in r.trace.notes)


def test_retag_quoted_over_written_reports_quotes_them_and_writes_only_with_nothing_to_quote(
        indexed, graph, double):
    # the double's reports are written (not composed from evidence) in sentences too short to
    # quote (a fragment, under MIN_WORDS): the method's written answerer (map-reduce, retag's
    # own) answers, said in a note
    q = Query(question="Ghosts: what did Scrooge see?", level=0, options=RetagOptions(top_p=200))
    quoted = indexed.model_copy(update={"retag_topics": False, "answer": "quote"})
    w = run(quoted, lambda llm: ask_retag(graph, llm, quoted, q))
    assert w.answered and w.trace.answer == "map-reduce" and any(
        n.startswith("nothing to quote") for n in w.trace.notes)
    # written reports of whole sentences: the quote gives their own, cited by the report
    graph.driver.execute_query(
        "MATCH (c:Community {scope: 'general', level: 0}) SET c.full_content = '# ' + c.title"
        " + '\\n\\nScrooge saw a ghost at midnight in his cold room.\\n\\n## Visits\\n\\n"
        "The ghost of Marley came back with heavy chains.'")
    maps = double.count("map")
    r = run(quoted, lambda llm: ask_retag(graph, llm, quoted, q))
    assert r.answered and r.trace.answer == "quote" and double.count("map") == maps
    assert "Scrooge saw a ghost at midnight" in r.answer
    assert r.citations and all(c.kind == "report" for c in r.citations)
