import json

import pytest

from neo4j_retag.cli.query import sources_line
from neo4j_retag.llm import run_with_llm
from neo4j_retag.model import Answer, Citation, ReportRow, Trace
from neo4j_retag.query.answer.map_batches import batches
from neo4j_retag.query.answer.map_reduce import map_reduce, min_points, with_marker
from tests.conftest import make_settings


def test_batches_fit_budget_and_cover_all():
    reports = [ReportRow(id=i, title=f"R{i}", full_content="word " * 200) for i in range(20)]
    groups = batches(reports, 1000, seed=1, enc="cl100k_base")
    assert sorted(r.id for g in groups for r in g) == list(range(20))
    assert len(groups) > 3
    # fixed seed -> same shuffle
    assert groups == batches(reports, 1000, seed=1, enc="cl100k_base")


def test_oversized_report_truncated_alone():
    groups = batches([ReportRow(id=1, title="big", full_content="word " * 5000)], 1000, 1,
                     "cl100k_base")
    assert len(groups) == 1


# --- real-model faults (issue 13), on scripted replies of the kind seen -----------------


def _reports(n=5):
    return [ReportRow(id=10 + i, title=f"Report {i}", full_content=f"Finding {i} about the "
                      f"harbour plan and the lantern festival.") for i in range(n)]


def _ask(settings, reports, question="What are the main themes?"):
    return run_with_llm(settings, lambda llm: map_reduce(llm, settings, question, reports,
                                                        Trace()))


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url)


def _points_schema(body):
    schema = body["response_format"]["json_schema"]["schema"]
    return schema["properties"]["points"]


def test_map_schema_asks_for_several_points_per_batch(dsettings, double):
    assert [min_points(n) for n in (0, 1, 2, 3, 9)] == [1, 1, 2, 3, 3]
    _ask(dsettings, _reports(5))
    body = next(b for k, b in double.calls if k == "map")
    assert _points_schema(body)["minItems"] == 3
    assert "at least 3 when" in " ".join(body["messages"][0]["content"].split())
    double.calls.clear()
    _ask(dsettings, _reports(1))
    body = next(b for k, b in double.calls if k == "map")
    assert _points_schema(body)["minItems"] == 1  # a one-report batch: one point is enough


def test_one_point_map_reply_is_accepted_and_repeats_are_merged(dsettings, double):
    # what a grammar-constrained model gave under minItems 1: one point per batch
    double.script["map"] = lambda b: json.dumps({"points": [
        {"description": "The harbour plan [Data: Reports (10)]", "score": 70, "reports": [10]}]})
    a = _ask(dsettings, _reports(3))
    assert a.trace.map_parse_failures == 0 and a.trace.points_total == a.trace.map_batches
    # a model made to give three points repeating one: one point remains, the best score
    double.script["map"] = lambda b: json.dumps({"points": [
        {"description": "The harbour plan [Data: Reports (10)]", "score": s, "reports": [10]}
        for s in (40, 90, 40)]})
    a = _ask(dsettings.model_copy(update={"llm_cache": False}), _reports(3))
    assert a.trace.points_total == a.trace.map_batches and a.trace.points_kept == 1


def test_no_citation_reduce_gets_no_invented_citation(dsettings, double):
    # the reduce answer cites nothing: the text stays as the model wrote it, the reports that
    # supported the map points are sources, shown apart
    double.script["reduce"] = lambda b: "The corpus is about a harbour town."
    a = _ask(dsettings, _reports(3))
    assert a.answer == "The corpus is about a harbour town."
    assert "[Data:" not in a.answer and a.citations == []
    assert {s.id for s in a.sources} == {10, 11, 12}
    assert not any(s.cited_in_answer for s in a.sources)
    assert any("cites no report" in n for n in a.trace.notes)
    out = a.as_dict()
    assert out["citations"] == [] and len(out["sources"]) == 3


def test_reduce_citations_hold_only_what_the_text_cites(dsettings, double):
    double.script["reduce"] = lambda b: ("Here is the answer:\n\nThe harbour plan matters "
                                         "[Data: Reports (11, 99)].")
    a = _ask(dsettings, _reports(3))
    assert a.answer == "The harbour plan matters [Data: Reports (11)]."
    assert [c.id for c in a.citations] == [11] and a.citations[0].cited_in_answer
    assert {s.id for s in a.sources} == {10, 11, 12}
    assert [s.id for s in a.sources if s.cited_in_answer] == [11]
    assert a.trace.invalid_citations == ["Reports 99"] and a.trace.chatter_stripped >= 1


def test_sources_line_in_the_terminal():
    a = Answer(answer="x", sources=[Citation(id=3, title="Harbour", cited_in_answer=True),
                                    Citation(id=4, cited_in_answer=False)])
    assert sources_line(a) == "report 3 (Harbour); report 4 - not cited"


def test_reduce_may_cite_only_reports_behind_its_points(dsettings, double):
    # report 13 was retrieved but no map point rests on it: the reduce step never saw it, so a
    # citation of it is copied or made up (a 1.5B model reused the prompt's "(2, 7)")
    double.script["map"] = lambda b: json.dumps({"points": [
        {"description": "The harbour plan [Data: Reports (10)]", "score": 70, "reports": [10]}]})
    double.script["reduce"] = lambda b: "The harbour plan [Data: Reports (10, 13)]."
    a = _ask(dsettings, _reports(5))
    assert a.answer == "The harbour plan [Data: Reports (10)]."
    assert [c.id for c in a.citations] == [10] and a.trace.invalid_citations == ["Reports 13"]


def test_a_reduced_sentence_copied_about_another_subject_is_dropped(dsettings, double):
    # the report says it of Amara Okafor; the reduce step gave it to the mayor
    reports = [ReportRow(id=10, title="Harbour", full_content="Amara Okafor, the harbour "
                         "master, warned the council that dredging would ruin the oyster beds.")]
    double.script["map"] = lambda b: json.dumps({"points": [
        {"description": "Okafor warned about the dredging", "score": 70, "reports": [10]}]})
    double.script["reduce"] = lambda b: (
        "The harbour plan divides the town. [Data: Reports (10)] Mayor Byrne warned the council "
        "that dredging would ruin the oyster beds. [Data: Reports (10)]")
    a = _ask(dsettings, reports)
    assert a.answer == "The harbour plan divides the town. [Data: Reports (10)]"
    assert "about okafor with byrne in its place" in a.trace.sentences_dropped[0]


def test_reduce_is_shown_each_points_checked_reports_as_a_marker(dsettings, double):
    # SmolLM2 filled the schema's ``reports`` field and wrote no marker: its reduce step had no
    # reference to preserve. The reduce context now carries exactly the checked ids
    assert with_marker("The harbour plan", [10, 11]) == "The harbour plan [Data: Reports (10, 11)]"
    assert with_marker("Plan [Data: Reports (10, 99)]", [10]) == "Plan [Data: Reports (10)]"
    assert with_marker("Plan [Data: Reports (99)]", [10]) == "Plan [Data: Reports (10)]"
    assert with_marker("Nothing relevant", []) == "Nothing relevant"
    assert with_marker("Many", list(range(8))) == "Many [Data: Reports (0, 1, 2, 3, 4)]"
    double.script["map"] = lambda b: json.dumps({"points": [
        {"description": "The harbour plan divides the town", "score": 70, "reports": [10]},
        {"description": "The lantern festival [Data: Reports (42)]", "score": 60,
         "reports": [11]}]})
    _ask(dsettings, _reports(3))
    body = next(b for k, b in double.calls if k == "reduce")
    context = body["messages"][-1]["content"]
    assert "The harbour plan divides the town [Data: Reports (10)]" in context
    assert "The lantern festival [Data: Reports (11)]" in context and "42" not in context


def test_empty_report_list_needs_no_llm(dsettings, double):
    a = _ask(dsettings, [])
    assert a.sources == [] and double.count() == 0


def _answer(tmp_path, map_handler):
    import asyncio
    import json

    from neo4j_retag.config import Settings
    from neo4j_retag.llm import LLM
    from neo4j_retag.model import Trace
    from neo4j_retag.query.answer.map_reduce import map_reduce
    from tests.llm_double import ScriptedLLM

    double = ScriptedLLM()
    double.start()
    double.script["map"] = map_handler or (lambda b: json.dumps(
        {"points": [{"description": "nothing", "score": 0, "reports": [1]}]}))
    s = Settings(llm_cache_dir=tmp_path, openai_model="double", llm_max_retries=1,
                 openai_base_url=double.base_url, llm_json_mode="json_schema",
                 map_context_tokens=300)
    reports = [ReportRow(id=i, title=f"R{i}", full_content="word " * 100) for i in range(4)]

    async def go():
        async with LLM(s) as llm:
            return await map_reduce(llm, s, "What?", reports, Trace(method="global"))
    try:
        return asyncio.run(go()), double
    finally:
        double.stop()


def test_every_map_batch_unparseable_is_an_error_not_a_canned_answer(tmp_path):
    import pytest

    from neo4j_retag.errors import LLMError
    with pytest.raises(LLMError, match=r"(\d+) of \1 map batches gave no usable points"):
        _answer(tmp_path, lambda b: "Here are my thoughts, in prose.")


def test_reports_that_score_zero_still_give_the_honest_no_answer(tmp_path):
    answer, _ = _answer(tmp_path, None)
    assert answer.trace.map_parse_failures == 0 and answer.trace.points_kept == 0
    assert any("do not answer" in n for n in answer.trace.notes)


def test_a_prose_map_reply_is_retried(tmp_path):
    import json
    seen = []

    def flaky(body):
        seen.append(1)
        if len(seen) == 1:
            return "Let me think about this in prose."
        ids = [int(x) for x in __import__("re").findall(r"^(\d+),", body["messages"][-1][
            "content"], __import__("re").M)] or [0]
        return json.dumps({"points": [{"description": "p", "score": 60, "reports": ids[:1]}]})
    answer, _ = _answer(tmp_path, flaky)
    assert answer.trace.map_parse_failures == 0 and answer.trace.points_kept >= 1


def test_no_sources_is_not_called_listed_apart(dsettings, double):
    # map points naming no report of their batch (fakellm's "[Data: Reports [0]]"): nothing
    # is behind the answer, so the note must not promise sources "listed apart"
    double.script["map"] = lambda b: json.dumps({"points": [
        {"description": "The harbour plan", "score": 70, "reports": [99]}]})
    double.script["reduce"] = lambda b: "The corpus is about a harbour town."
    a = _ask(dsettings, _reports(3))
    assert a.sources == [] and a.citations == []
    assert not any("listed apart" in n for n in a.trace.notes)
    assert any("no map point named one" in n for n in a.trace.notes)


def test_an_answer_without_markers_gets_the_reports_of_the_point_each_sentence_rests_on(
        dsettings, double):
    # issue 30: Qwen wrote no marker; the map points hold the ids the sentences rest on
    double.script["map"] = lambda b: json.dumps({"points": [
        {"description": "The harbour plan divides the council.", "score": 80, "reports": [10]},
        {"description": "The lantern festival returns to the quayside.", "score": 60,
         "reports": [11]}]})
    double.script["reduce"] = lambda b: ("The harbour plan divides the council. The lantern "
                                         "festival returns. The town is busy.")
    a = _ask(dsettings, _reports(2))
    assert a.answer == ("The harbour plan divides the council. [Data: Reports (10)] The lantern "
                        "festival returns. [Data: Reports (11)] The town is busy.")
    assert [(c.id, c.attributed) for c in a.citations] == [(10, True), (11, True)]
    assert any("2 of its sentences were attributed" in n for n in a.trace.notes)
    # a model that cites keeps its own markers, nothing attributed
    double.script["reduce"] = lambda b: "The harbour plan divides the council [Data: Reports (11)]."
    a = _ask(dsettings.model_copy(update={"llm_cache": False}), _reports(2))
    assert [(c.id, c.attributed) for c in a.citations] == [(11, False)]
