"""`evaluate` with saved answers (`eval --resume`): each new answer is saved as it ends, with
the kept ones not reached yet; a stopped run's rerun asks only what is missing or failed."""

import asyncio

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import Failure
from neo4j_retag.eval import run as eval_run
from neo4j_retag.eval.records import AnswerRecord
from neo4j_retag.eval.saved import (
    SavedRun,
    answer_settings,
    kept_answers,
    kept_judgements,
    read_saved,
)
from neo4j_retag.model import Answer, Citation, Trace

QUESTIONS, METHODS = ["q1", "q2"], ["global", "retag"]


class Stop(Exception):
    """The run killed mid-way (as Ctrl-C or a lost machine would)."""


class Asked(list):
    fail: set[str] = frozenset()
    stop_at: int | None = None


@pytest.fixture
def asked(monkeypatch):
    """Every (question, method) answered, in order; an answer fails for a question in
    ``asked.fail`` and the run stops at ``asked.stop_at`` answers."""
    calls = Asked()

    async def answer(graph, llm, settings, method, q, level):
        if len(calls) == calls.stop_at:
            raise Stop
        calls.append((q, method))
        if q in calls.fail:
            return AnswerRecord(question=q, method=method,
                                error=Failure(item=f"answer by {method}", reason="http500"))
        return AnswerRecord(question=q, method=method, answer=f"{method}: {q}")

    async def no_claims(llm, settings, rec):
        return None

    monkeypatch.setattr(eval_run, "_answer", answer)
    monkeypatch.setattr(eval_run, "_claims", no_claims)
    return calls


def _run(settings, path, kept=None, judged=False, verdicts=()):
    saved = SavedRun(path.parent, kept or [], list(verdicts))
    return asyncio.run(eval_run.evaluate(None, None, settings, QUESTIONS, METHODS, 0,
                                         judged=judged, saved=saved))


def test_a_stopped_run_resumes_asking_only_the_missing_and_failed_answers(asked, tmp_path):
    settings, path = Settings(openai_model="m"), tmp_path / "answers.json"
    key = answer_settings(settings, 0)
    asked.fail, asked.stop_at = {"q1"}, 3
    with pytest.raises(Stop):
        _run(settings, path)
    saved = read_saved(path)  # written after each answer: the 3 that ended are there
    assert [(a["question"], a["method"], a["settings"]) for a in saved] == [
        ("q1", "global", key), ("q1", "retag", key), ("q2", "global", key)]
    kept, notes = kept_answers(saved, key, METHODS, QUESTIONS)
    assert notes == ["2 saved answers had failed: asked again"]
    asked.clear()
    asked.fail, asked.stop_at = set(), 1  # stopped again after one more answer ...
    with pytest.raises(Stop):
        _run(settings, path, kept)
    # ... the kept answer not reached yet is still in the file
    assert {(a["question"], a["method"]) for a in read_saved(path)} == {
        ("q1", "global"), ("q2", "global")}
    asked.clear()
    asked.stop_at = None
    kept, _ = kept_answers(read_saved(path), key, METHODS, QUESTIONS)
    result, answers, _ = _run(settings, path, kept)
    assert asked == [("q1", "retag"), ("q2", "retag")]  # only what was missing
    assert [(a.question, a.method) for a in answers] == [
        (q, m) for q in QUESTIONS for m in METHODS]
    assert result.failures == [] and all(a.answer for a in answers)
    assert len(read_saved(path)) == 4


def test_answers_of_other_settings_are_asked_again(asked, tmp_path):
    path = tmp_path / "answers.json"
    _run(Settings(openai_model="m"), path)
    other = Settings(openai_model="m", top_p_share=0.5)
    kept, notes = kept_answers(read_saved(path), answer_settings(other, 0), METHODS,
                               QUESTIONS)
    assert kept == [] and "4 saved answers were made with other settings" in notes[0]
    asked.clear()
    _run(other, path, kept)
    assert len(asked) == 4


def test_verdicts_are_saved_as_they_end_and_kept_unless_failed_or_stale(asked, tmp_path,
                                                                         monkeypatch):
    judged: list[tuple[str, str]] = []

    async def judge(llm, settings, q, criterion, a, b, failures):
        judged.append((q, criterion))
        if criterion == "directness" and q == "q2":
            failures.append(Failure(item=f"verdict on {q}", reason="http500"))
        return 1.0
    monkeypatch.setattr(eval_run, "judge", judge)
    monkeypatch.setattr(eval_run, "criteria", lambda settings: ["diversity", "directness"])
    settings, path = Settings(openai_model="m"), tmp_path / "answers.json"
    result, answers, verdicts = _run(settings, path, judged=True)
    assert len(judged) == 4 and len(result.failures) == 1
    saved = read_saved(tmp_path / "judgements.json")
    assert sorted((j["question"], j["criterion"], j["failed"]) for j in saved) == [
        ("q1", "directness", False), ("q1", "diversity", False),
        ("q2", "directness", True), ("q2", "diversity", False)]
    # the rerun keeps every answer and the 3 good verdicts: only the failed one is asked
    kept, _ = kept_answers(read_saved(path), answer_settings(settings, 0), METHODS, QUESTIONS)
    asked.clear()
    judged.clear()
    result, _, verdicts = _run(settings, path, kept, True,
                               kept_judgements(saved, kept))
    assert asked == [] and judged == [("q2", "directness")] and len(result.failures) == 1
    assert len(verdicts) == 4 and len(read_saved(tmp_path / "judgements.json")) == 4
    # an answer asked again (here: q1's not kept) makes its verdicts stale
    fresh = [a for a in kept if a.question == "q2"]
    assert {j.question for j in kept_judgements(saved, fresh)} == {"q2"}


def test_an_answer_record_keeps_every_report_and_text_unit_the_answer_read(monkeypatch):
    # a hand check must see what the call read, cited or not (ReTAG's text units)
    read = [Citation(kind="report", id=4, cited_in_answer=True),
            Citation(kind="text_unit", id="u7")]

    async def answer(graph, llm, settings, request):
        return Answer(answer="Scrooge changes.", citations=read[:1], sources=read,
                      trace=Trace(method="retag"))

    monkeypatch.setattr(eval_run, "answer_question", answer)
    rec = asyncio.run(eval_run._answer(None, None, Settings(), "retag", "q1", 0))
    assert rec.sources == read and rec.citations == read[:1]
    assert AnswerRecord.model_validate_json(rec.model_dump_json()).sources == read


@pytest.mark.parametrize("spec, parsed", [
    ("retag", ("retag", {})),
    ("retag@top_p=12", ("retag", {"top_p": 12})),
    ("retag@top_p=12@retrieval=bm25", ("retag", {"top_p": 12, "retrieval": "bm25"})),
    ("lazy@budget=50", ("lazy", {"budget": 50})),
    ("lazy@50", ("lazy", {"budget": 50})),  # one option: its value alone
    ("global@answer=quote", ("global", {"answer": "quote"})),
    ("lazy@answer=quote@budget=20", ("lazy", {"answer": "quote", "budget": 20})),
])
def test_an_arm_sets_any_declared_option_read_by_its_type(spec, parsed):
    assert eval_run.method_spec(spec) == parsed


@pytest.mark.parametrize("spec, line", [
    ("retag@top_p=0", "'retag@top_p=0': top_p: Input should be greater than or equal to 1"),
    ("lazy@budget=10001", "budget: Input should be less than or equal to 10000"),
    ("retag@top_p=many", "top_p: Input should be a valid integer"),
    ("retag@retrieval=fast", "retrieval: Input should be 'bm25', 'vector' or 'hybrid'"),
    ("rag@budget=5", "rag takes no option 'budget' (its options: retrieval, answer;"),
    ("drift@answer=quote", "drift takes no option 'answer' (its options: none;"),
    ("retag@12", "retag takes no option '12'"),  # three options: which one?
    ("nope@top_p=1", "unknown method 'nope@top_p=1'"),
])
def test_a_bad_arm_is_one_line_naming_what_is_wrong(spec, line):
    from neo4j_retag.errors import InputError
    with pytest.raises(InputError) as err:
        eval_run.method_spec(spec)
    assert line in str(err.value) and "\n" not in str(err.value)


def test_each_arm_is_asked_with_its_options_under_its_own_method(monkeypatch):
    requests = []

    async def answer(graph, llm, settings, request):
        requests.append(request)
        return Answer(answer=request.method, trace=Trace(method=request.method))

    monkeypatch.setattr(eval_run, "answer_question", answer)
    for spec in ("retag@top_p=12", "retag@top_p=3@retrieval=bm25", "retag"):
        rec = asyncio.run(eval_run._answer(None, None, Settings(), spec, "q1", 0))
        assert rec.method == spec and rec.answer == "retag"
    assert [(r.method, r.top_p, r.retrieval) for r in requests] == [
        ("retag", 12, None), ("retag", 3, "bm25"), ("retag", None, None)]


def test_in_a_run_each_arm_is_its_own_method(asked):
    arms = ["retag@top_p=12", "retag@top_p=3"]
    result, answers, _ = asyncio.run(eval_run.evaluate(None, None, Settings(), QUESTIONS, arms,
                                                       0, judged=False, saved=SavedRun()))
    assert [(a.question, a.method) for a in answers] == [(q, m) for q in QUESTIONS for m in arms]
    assert set(result.cost) == set(arms)
