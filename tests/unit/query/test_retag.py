"""ReTAG's query-side choices that need no graph: the topics offered, reports cut to a budget."""

from neo4j_retag.config import Settings
from neo4j_retag.model import ReportRow, Trace
from neo4j_retag.query.retag import cut_reports, offered_topics
from neo4j_retag.tokens import count

TOPICS = [{"name": "Ghosts", "share": 0.8}, {"name": "Money", "share": 0.3},
          {"name": "Old", "share": None}]  # a row without a share: never over the cap


def test_a_topic_holding_most_entities_is_not_offered_and_said():
    trace = Trace(method="retag")
    got = offered_topics(Settings(retag_topics=True, retag_topic_max_share=0.5), TOPICS,
                         trace)
    assert [t["name"] for t in got] == ["Money", "Old"]
    assert trace.notes == ["topic 'Ghosts' holds 80% of the entities, over "
                           "RETAG_TOPIC_MAX_SHARE=0.5: not a topic, not offered"]
    trace = Trace(method="retag")
    assert offered_topics(Settings(retag_topics=False), TOPICS, trace) == []
    assert "RETAG_TOPICS=false" in trace.notes[0]
    assert offered_topics(Settings(retag_topics=False), [], Trace()) == []  # nothing to say


def test_reports_are_cut_to_their_first_tokens_and_counted():
    long = ReportRow(id=1, title="Long", full_content="# Long\n\n" + "word " * 900)
    short = ReportRow(id=2, title="Short", full_content="# Short\n\nfew words")
    trace = Trace(method="retag")
    out = cut_reports(Settings(retag_report_tokens=100), [long, short], trace)
    assert count(out[0].full_content) == 100 and out[0].full_content.startswith("# Long")
    assert out[1] == short
    assert trace.notes == ["1 of 2 reports read up to their first 100 tokens "
                           "(RETAG_REPORT_TOKENS)"]
    assert cut_reports(Settings(retag_report_tokens=0), [long], Trace()) == [long]  # whole


class Levels:
    """A graph stub answering query/retag_pool only: ``reports`` reports."""

    def __init__(self, reports: int) -> None:
        self.reports = reports

    def run(self, name, **params):
        assert name == "query/retag_pool"
        return [{"reports": self.reports}]


def test_p_is_a_share_of_the_level_but_never_under_the_floor_nor_over_top_p():
    from neo4j_retag.query.retag import MIN_SHARE_P, share_p
    quarter = Settings(top_p_share=0.25)
    assert share_p(Levels(48), quarter, "general", 0, 200) == 12
    assert share_p(Levels(48), quarter, "general", 0, 10) == 10  # TOP_P still caps it
    assert share_p(Levels(7), quarter, "general", 0, 200) == 7  # a small level: all of it
    assert share_p(Levels(20), quarter, "general", 0, 200) == MIN_SHARE_P
    assert share_p(Levels(48), Settings(top_p_share=1), "general", 0, 200) == 200  # the paper


def classify(tmp_path, double, reply, **settings) -> tuple[list[str], Trace]:
    import json

    from neo4j_retag.llm import run_with_llm
    from neo4j_retag.query.retag import classify_topics
    from tests.conftest import make_settings

    double.script["classify"] = lambda body: json.dumps(reply)
    s = make_settings(tmp_path, settings, openai_base_url=double.base_url)
    trace = Trace()
    rows = [{**t, "description": "about it"} for t in TOPICS]
    got = run_with_llm(s, lambda llm: classify_topics(llm, s, "Q?", rows, "", trace))
    return got, trace


def test_a_question_spanning_topics_reads_each_of_them_in_order(tmp_path, double):
    got, trace = classify(tmp_path, double, {"topics": ["Money", "Ghosts", "Money"]})
    assert got == ["Money", "Ghosts"]
    assert trace.notes == ["the question spans 2 topics: 'Money', 'Ghosts'; each gives its "
                           "share of the p reports"]


def test_no_topic_is_the_general_graph_and_said(tmp_path, double):
    got, trace = classify(tmp_path, double, {"topics": []})
    assert got == [] and trace.notes == ["the question matches no topic: general graph"]


def test_more_topics_than_retag_max_topics_are_cut_to_the_bound(tmp_path, double):
    # the schema bounds the list for a grammar; an endpoint without one may give more
    got, trace = classify(tmp_path, double, {"topics": ["Money", "Ghosts"]},
                          retag_max_topics=1)
    assert got == ["Money"] and trace.notes == []
