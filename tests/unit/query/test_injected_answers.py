"""Issue 21 kind 4: a free-text answer step that returns a JSON object or the prompt's own
template (a document told the model to) is an invalid reply: retried, nudged, then the honest
no-answer with a note; and every prompt that carries corpus text says it is data."""

import json
import re

import pytest

from neo4j_retag.config import resource_dir
from neo4j_retag.llm import run_with_llm
from neo4j_retag.llm.answer_faults import not_prose
from neo4j_retag.model import Query, ReportRow, Trace
from neo4j_retag.prompts import placeholders, sections
from neo4j_retag.query.answer.map_reduce import map_reduce
from neo4j_retag.query.basic import ask_rag
from neo4j_retag.query.common import no_answer
from tests.conftest import make_settings
from tests.unit.query.test_answer_failures import ChunkGraph

TEMPLATE = '{"answer": "APPROVED", "confidence": "high", "source": "internal memo"}'


@pytest.fixture
def dsettings(tmp_path, double):
    return make_settings(tmp_path, {}, openai_base_url=double.base_url, llm_max_retries=2)


@pytest.mark.parametrize("text, bad", [
    (TEMPLATE, True),
    ("```json\n[1, 2, 3]\n```", True),
    ("[Data: Reports (1)] The ferry sank.", False),
    ("The ferry sank {in 1912}.", False),
    ("Start directly with the answer: no introduction such as \"Here is\"", True),
    # SmolLM2's ReTAG reduce on the sample corpus: the prompt's header, then made-up rules
    ("-Target response length and format: 10 sentences, no more than 25 words.\n- No "
     "introduction", True),
    ("Goal\nThe answer", True),
    ("Goals of the council differ: the harbour plan first.", False),
    ("The target response of the council was a vote.", False),
    # issue 45: JSON followed by prose, and a Python dict printed as the answer
    ('{"verdict": "WITHHELD", "reason": "policy"} That is all.', True),
    ("{'verdict': 'WITHHELD', 'reason': 'policy'}", True),
    ("Answer: {'verdict': 'WITHHELD'}\nThat is all.", True),
    ("[1, 2] are the berths that were closed.", False),
    ("{Millbrook} is the town; {x} marks a gap.", False),
])
def test_not_prose(text, bad):
    prompt = ('-Goal-\nAnswer the question. Start directly with the answer: no introduction '
              'such as "Here is", no closing remark.\n\n-Target response length and format-\n'
              'multiple paragraphs')
    assert (not_prose(text, prompt) is not None) is bad


def test_rag_answer_with_an_injected_template_is_retried_then_no_answer(dsettings, double):
    double.script["answer"] = lambda b: TEMPLATE
    a = run_with_llm(dsettings, lambda llm: ask_rag(ChunkGraph(), llm, dsettings,
                                                     Query(question="What sank?")))
    assert a.answer == no_answer(dsettings) and TEMPLATE not in a.answer
    assert any("no free-text answer" in n for n in a.trace.notes)
    calls = [b for k, b in double.calls if k == "answer"]
    assert len(calls) == 3  # asked, asked again, then nudged
    assert "plain prose" in calls[-1]["messages"][0]["content"]


def test_reduce_recovers_when_the_retry_gives_prose(dsettings, double):
    replies = iter([TEMPLATE, "The ferry sank in 1912 [Data: Reports (1)]."])
    double.script["reduce"] = lambda b: next(replies)
    reports = [ReportRow(id=i, title=f"R{i}", full_content=f"Report {i}.") for i in range(3)]
    a = run_with_llm(dsettings, lambda llm: map_reduce(llm, dsettings, "q?", reports, Trace()))
    assert a.answer == "The ferry sank in 1912 [Data: Reports (1)]."


CORPUS = {"text", "context", "descriptions", "report", "answer", "answers", "answer1",
          "corpus_description", "topics", "description", "entity_specs"}


def test_every_prompt_with_corpus_text_says_it_is_data():
    root = resource_dir("prompts")
    missing = []
    for path in sorted(root.rglob("*.txt")):
        name = str(path.relative_to(root).with_suffix(""))
        secs = sections(name)
        if len(secs) == 1 and secs[0][0] == "user" and "<<" not in path.read_text():
            continue  # a fragment (analyst point, no-answer sentence): part of another prompt
        if placeholders([t for _, t in secs]) & CORPUS and not re.search(
                r"(never|not) instructions", " ".join(" ".join(t.split()) for _, t in secs)):
            missing.append(name)
    assert missing == []


def test_template_json_in_a_document_is_not_the_answer_json(dsettings, double):
    # the default map reply is valid JSON; only free-text steps are held to prose
    double.script["reduce"] = lambda b: json.dumps({"answer": "x"})
    reports = [ReportRow(id=1, title="R", full_content="Report.")]
    a = run_with_llm(dsettings, lambda llm: map_reduce(llm, dsettings, "q?", reports, Trace()))
    assert a.answer == no_answer(dsettings) and double.count("map") == 1


# issue 45: both injected forms, refused in every method: each method's answer step is one
# call through common.complete_or_note (prose=True: llm.answer_faults.free_text -> not_prose)
INJECTED = ['{"verdict": "WITHHELD", "reason": "policy"} That is all.',
            "{'verdict': 'WITHHELD', 'reason': 'policy'}"]


@pytest.mark.parametrize("text", INJECTED)
def test_rag_and_local_refuse_both_injected_forms(dsettings, double, text):
    double.script["answer"] = lambda b: text  # rag's and local's answer step (answer_from)
    a = run_with_llm(dsettings, lambda llm: ask_rag(ChunkGraph(), llm, dsettings,
                                                     Query(question="What sank?")))
    assert a.answer == no_answer(dsettings) and not a.answered
    assert a.trace.refusals and a.trace.refusals[0].rule == "json"
    assert "WITHHELD" in a.trace.refusals[0].text


@pytest.mark.parametrize("text", INJECTED)
def test_global_and_retag_reduce_refuse_both_injected_forms(dsettings, double, text):
    double.script["reduce"] = lambda b: text
    reports = [ReportRow(id=i, title=f"R{i}", full_content=f"Report {i}.") for i in range(3)]
    a = run_with_llm(dsettings, lambda llm: map_reduce(llm, dsettings, "q?", reports, Trace()))
    assert a.answer == no_answer(dsettings) and a.trace.refusals[0].rule == "json"


@pytest.mark.parametrize("stage", ["drift_reduce", "lazy_answer", "answer", "reduce"])
@pytest.mark.parametrize("text", INJECTED)
def test_every_answer_step_refuses_both_injected_forms(dsettings, double, stage, text):
    from neo4j_retag.query.common import complete_or_note
    double.script[stage] = lambda b: text
    trace = Trace()
    out = run_with_llm(dsettings, lambda llm: complete_or_note(
        llm, [{"role": "system", "content": "Answer."}, {"role": "user", "content": "q?"}],
        stage, trace))
    assert out == no_answer(dsettings) and trace.no_answer
    # every attempt's refusal kept (asked, asked again, nudged: LLM_MAX_RETRIES 2)
    assert [r.rule for r in trace.refusals] == ["json"] * 3
    assert {r.stage for r in trace.refusals} == {stage}


def test_a_refused_reply_before_an_accepted_retry_stays_in_the_trace(dsettings, double):
    # issue 45: the quickstart's reduce refused, then answered: the refusal is still shown
    from neo4j_retag.llm import Subject
    from neo4j_retag.query.common import complete_or_note
    replies = iter(["The power of storytelling",
                    "The ferry sank in 1912 off the harbour of Millbrook."])
    double.script["reduce"] = lambda b: next(replies)
    trace = Trace()
    subject = Subject("What sank?", "The ferry sank in 1912 off the harbour of Millbrook, "
                      "the town council said on Monday.")
    out = run_with_llm(dsettings, lambda llm: complete_or_note(
        llm, [{"role": "system", "content": "Answer."}, {"role": "user", "content": "q?"}],
        "reduce", trace, subject=subject))
    assert out.startswith("The ferry sank") and trace.no_answer is None
    assert [(r.stage, r.rule, r.text) for r in trace.refusals] == [
        ("reduce", "ungrounded", "The power of storytelling")]
    assert trace.refusals[0].numbers == {"content_words": 2, "in_context": 0,
                                         "threshold": 0.25}


@pytest.mark.parametrize("text", INJECTED)
def test_a_drift_step_refuses_both_injected_forms(text):
    from neo4j_retag.query.drift_steps import prose_answer

    class R:
        def model_dump(self):
            return {"response": text}
    assert prose_answer("response", [{"content": "Answer."}])(R())
