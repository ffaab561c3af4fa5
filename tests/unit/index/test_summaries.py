"""Description summaries and report fields without the model's chatter (issue 13)."""

from collections import Counter

from neo4j_retag.community_report import CommunityReport
from neo4j_retag.index.elements import joined_descriptions, summarize_texts
from neo4j_retag.llm import run_with_llm
from tests.conftest import make_settings


def test_chatter_prefixed_summary_is_stored_clean_and_counted(tmp_path, double):
    settings = make_settings(tmp_path, {}, openai_base_url=double.base_url)
    # what Qwen2.5-Coder-1.5B stored as an entity's description
    double.script["summarize"] = lambda b: (
        "A comprehensive summary of the given descriptions would be:\n\n"
        '"Elena Varga is the mayor of Millbrook and backs the harbour plan."')
    chatter: Counter[str] = Counter()
    text = run_with_llm(settings, lambda llm: summarize_texts(
        llm, settings, "Elena Varga", ["The mayor of Millbrook.", "Backs the harbour plan."],
        chatter=chatter))
    assert text == "Elena Varga is the mayor of Millbrook and backs the harbour plan."
    assert chatter == {"summarize": 1}
    body = next(b for k, b in double.calls if k == "summarize")
    assert "no introduction" in body["messages"][0]["content"]  # the prompt asks for text only
    double.script["summarize"] = lambda b: "Elena Varga is the mayor."
    text = run_with_llm(settings, lambda llm: summarize_texts(
        llm, settings, "Varga", ["The mayor.", "A mayor."], chatter=chatter))
    assert text == "Elena Varga is the mayor." and chatter == {"summarize": 1}
    # a sentence the descriptions do not support is the model's own: removed and counted
    double.script["summarize"] = lambda b: ("Elena Varga is the mayor. She was born in Vienna "
                                            "to a family of Austrian bankers.")
    text = run_with_llm(settings, lambda llm: summarize_texts(
        llm, settings, "Elena Varga", ["The mayor.", "Mayor of the town."], chatter=chatter))
    assert text == "Elena Varga is the mayor."
    assert chatter["summary sentences unsupported (removed)"] == 1


def test_few_short_descriptions_are_joined_without_a_call(tmp_path):
    settings = make_settings(tmp_path, {})
    assert settings.index.summary_min_descriptions == 8  # LightRAG's FORCE_LLM_SUMMARY_ON_MERGE
    # sorted, so the stored text (and the report keys built on it) do not depend on read order
    assert joined_descriptions(settings, ["The mayor.", " Backs the plan. ", "The mayor."]) \
        == "Backs the plan. The mayor."
    assert joined_descriptions(settings, ["Only one."]) is None  # nothing to merge
    assert joined_descriptions(settings, [f"Fact {i}." for i in range(8)]) is None  # many
    few = make_settings(tmp_path, {"summary_max_tokens": 10})
    assert joined_descriptions(few, ["word " * 6, "more " * 6]) is None  # too long joined
    always = make_settings(tmp_path, {"summary_min_descriptions": 2})
    assert joined_descriptions(always, ["The mayor.", "Backs the plan."]) is None


def test_report_fields_lose_their_chatter():
    report = CommunityReport.model_validate({
        "title": '"Harbour Plan"', "summary": "Summary: The harbour plan divides the council.",
        "rating": 7, "rating_explanation": "Here is the explanation:\nA council vote is due.",
        "findings": [{"summary": "**Cost:** rising", "explanation": "```\nFrom 30 to 45 "
                      "million.\n```"}]})
    clean, changed = report.without_chatter()
    assert changed and clean.title == "Harbour Plan"
    assert clean.summary == "The harbour plan divides the council."
    assert clean.rating_explanation == "A council vote is due."
    assert clean.findings[0].explanation == "From 30 to 45 million."
    assert clean.findings[0].summary == "**Cost:** rising"  # a label inside content stays
    assert clean.without_chatter() == (clean, False)


def test_failed_summary_keeps_the_rules_join(tmp_path, double):
    """A failed summary falls back to the same text the no-call rule stores: sorted, distinct,
    without chatter - the stored description does not depend on which path wrote it."""
    from tests.llm_double import Fail
    settings = make_settings(tmp_path, {}, openai_base_url=double.base_url)
    def fail(body):
        raise Fail(400)
    double.script["summarize"] = fail
    failures: list = []
    descriptions = ["Here is the summary:\n\"The mayor.\"", "Backs the plan.", "The mayor."]
    text = run_with_llm(settings, lambda llm: summarize_texts(
        llm, settings, "Varga", descriptions, failures))
    assert text == joined_descriptions(settings, descriptions) == "Backs the plan. The mayor."
    assert [f.item for f in failures] == ["Varga"]
