"""Issue 48 item 1 (ratings): the forms models write a rating in are read onto its scale
(words, fractions of any scale, percentages, number words); what reads as no rating is an
invalid reply (asked again, then a counted failure), never a silent 0; a number outside the
scale is clamped and counted in the trace."""

import asyncio
import json

import pytest
from pydantic import ValidationError

from neo4j_retag.config import Settings
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.llm.reply import ReplyFault
from neo4j_retag.model import ReportRow, Trace
from neo4j_retag.query.dynamic import Rating, rate
from neo4j_retag.query.lazy_relevance import read_answer
from neo4j_retag.query.ratings import read_rating


@pytest.mark.parametrize("written, value", [
    (4, 4.0), ("3.5", 3.5), ("4 - clearly relevant", 4.0), ("1,5", 1.5),
    ("3/5", 3.0), ("6/10", 3.0), ("4 out of 5", 4.0), ("9 of 10", 4.5),
    ("40%", 2.0), ("100 percent", 5.0), ("four", 4.0), ("Two.", 2.0),
    ("Very High", 5.0), ("moderate", 2.5), ("NOT RELEVANT", 0.0), ("somewhat relevant.", 2.0),
    ("highly relevant to the question", 4.0), ("irrelevant", 0.0),
])
def test_forms_models_write_are_read_onto_0_to_5(written, value):
    got = read_rating(written, 0, 5)
    assert got.value == pytest.approx(value) and got.outside is None


@pytest.mark.parametrize("written, value, outside", [
    (7, 5.0, 7.0), ("-2", 0.0, -2.0), ("12/10", 5.0, 6.0), ("150%", 5.0, 7.5),
])
def test_out_of_range_is_clamped_and_reported(written, value, outside):
    assert read_rating(written, 0, 5) == (value, outside)


@pytest.mark.parametrize("written", ["maybe", "", "n/a", "3/0", None, [3], {"score": 2}])
def test_what_reads_as_no_rating_is_an_error_not_zero(written):
    with pytest.raises(ValueError, match="no rating"):
        read_rating(written, 0, 5)
    with pytest.raises(ValidationError):
        Rating.model_validate({"rating": written, "reason": "r"})


def test_a_rating_reply_without_a_rating_is_invalid():
    with pytest.raises(ValidationError):
        Rating.model_validate({"reason": "about the harbour"})
    assert set(Rating.model_json_schema()["properties"]) == {"rating", "reason"}


@pytest.mark.parametrize("written, relevant", [
    ("Y", True), ("yes", True), (" **Yes**", True), ("Answer: Y", True), ("Relevant", True),
    ("True", True), ('{"relevant": true}', True),
    ('{"relevant": "High"}', True), ('{"relevant": "4/5"}', True), ('{"relevant": 1}', True),
    ("N", False), ("No.", False), ("n", False), ("not relevant", False), ("Answer: No", False),
    ('{"relevant": false}', False), ('{"relevant": "low"}', False), ('{"relevant": "10%"}', False),
])
def test_lazy_relevance_reads_one_letter_and_the_json_forms(written, relevant):
    assert read_answer(written, []) is relevant


@pytest.mark.parametrize("written", ["perhaps", "The passage", '{"relevant": 3}', "{",
                                     '{"relevant": "-1"}', "?"])
def test_lazy_relevance_unreadable_or_outside_0_1_is_invalid(written):
    with pytest.raises(ReplyFault, match="invalid"):
        read_answer(written, [])


def _rate(double, tmp_path, replies):
    seq = list(replies)
    double.script["rate"] = lambda b: json.dumps(seq.pop(0) if len(seq) > 1 else seq[0])
    settings = Settings(openai_base_url=double.base_url, openai_model="double",
                        llm_json_mode="json_schema", llm_cache=False, llm_max_retries=1,
                        neo4j_retag_home=tmp_path)
    trace = Trace()
    report = ReportRow(id=7, level=0, title="Harbour", full_content="The harbour board.")

    async def go():
        async with LLM(settings, Usage()) as llm:
            return await rate(llm, settings, "Who runs the harbour?", report, trace), llm
    got, llm = asyncio.run(go())
    return got, trace, llm.usage


def test_a_word_rating_selects_without_a_retry(double, tmp_path):
    got, trace, usage = _rate(double, tmp_path, [{"rating": "high", "reason": "board"}])
    assert got == 4.0 and usage.stage("rate").calls == 1 and not trace.notes


def test_an_unreadable_rating_is_a_counted_failure(double, tmp_path):
    got, trace, usage = _rate(double, tmp_path, [{"rating": "unclear", "reason": "?"}])
    assert got is None and usage.stage("rate").calls == 2 and usage.stage("rate").failed == 1
    assert any("report 7" in n and "failed" in n for n in trace.notes)


def test_an_out_of_range_rating_is_clamped_and_noted(double, tmp_path):
    got, trace, _ = _rate(double, tmp_path, [{"rating": 9, "reason": "very"}])
    assert got == 5.0 and any("rated 9, outside 0-5" in n for n in trace.notes)


@pytest.mark.parametrize("written, value", [
    ("Rating: 4", 4.0), ("about 2/5", 2.0), ("score of 70%", 3.5), (True, 3.0), (False, 0.0),
])
def test_a_rating_inside_a_short_phrase_is_read(written, value):
    assert read_rating(written, 0, 5).value == pytest.approx(value)


def test_two_numbers_are_no_rating():
    with pytest.raises(ValueError):
        read_rating("between 2 and 3", 0, 5)


@pytest.mark.parametrize("written, score", [("high", 80.0), ("3/4", 75.0), ("55%", 55.0),
                                            (140, 100.0)])
def test_map_and_drift_scores_read_the_same_forms(written, score):
    from neo4j_retag.query.answer.map_reduce import MapPoint
    from neo4j_retag.query.drift_steps import Reply
    assert MapPoint.model_validate({"description": "d", "score": written}).score == score
    assert Reply.model_validate({"response": "r", "score": written}).score == score
    with pytest.raises(ValidationError):
        MapPoint.model_validate({"description": "d", "score": "somewhat"})
