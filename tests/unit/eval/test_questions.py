"""Activity-centred question generation (Edge et al. 2024 §3.3) with the scripted LLM double,
and the questions file round trip."""

import asyncio
import json

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import InputError
from neo4j_retag.eval.questions import (
    EvalQuestion,
    generate_questions,
    read_questions,
    write_questions,
)
from neo4j_retag.llm import LLM, Usage
from tests.llm_double import Fail


def _settings(double, tmp_path):
    return Settings(openai_base_url=double.base_url, openai_model="double",
                    llm_json_mode="json_schema", llm_cache=False, llm_max_retries=1,
                    neo4j_retag_home=tmp_path)


def _generate(settings, **kw):
    async def go():
        async with LLM(settings, Usage()) as llm:
            return await generate_questions(llm, settings, "A Christmas Carol", **kw)
    return asyncio.run(go())


def test_personas_tasks_questions(double, tmp_path):
    qs, failures = _generate(_settings(double, tmp_path), personas=2, tasks=2, questions=1)
    assert failures == []
    assert double.count("personas") == 1 and double.count("tasks") == 2
    assert double.count("questions") == 4  # 2 personas x 2 tasks
    assert len(qs) == 4  # 1 per task (the double offers 2)
    assert {q.persona for q in qs} == {"A historian of Victorian London",
                                       "A teacher planning a lesson"}
    assert qs[0].task == "task 1 of the historian"
    assert qs[0].question == "What are the themes, for task 1 of the historian?"


def test_the_schema_asks_for_exactly_the_counts(double, tmp_path):
    _generate(_settings(double, tmp_path), personas=3, tasks=2, questions=4)
    def schema(kind):
        body = next(b for k, b in double.calls if k == kind)
        return body["response_format"]["json_schema"]["schema"]["properties"][kind]
    for kind, n in (("personas", 3), ("tasks", 2), ("questions", 4)):
        assert schema(kind)["minItems"] == schema(kind)["maxItems"] == n
        assert schema(kind)["items"]["minLength"] == 15


def test_a_failed_task_list_fails_that_persona_only(double, tmp_path):
    def tasks(body):
        if "teacher" in body["messages"][-1]["content"]:
            raise Fail(400)
        return json.dumps({"tasks": ["read it"]})
    double.script["tasks"] = tasks
    qs, failures = _generate(_settings(double, tmp_path), personas=2, tasks=1, questions=2)
    assert len(qs) == 2 and len(failures) == 1
    assert "teacher" in failures[0].item and failures[0].reason == "http400"


def test_questions_file_round_trip(tmp_path):
    qs = [EvalQuestion(question="What are the themes?", persona="p", task="t"),
          EvalQuestion(question="Who changes?")]
    js, txt = write_questions(tmp_path, qs)
    assert read_questions(js) == qs
    assert [q.question for q in read_questions(txt)] == [q.question for q in qs]
    plain = tmp_path / "mine.json"
    plain.write_text('["Q one?", {"question": "Q two?"}]')
    assert [q.question for q in read_questions(plain)] == ["Q one?", "Q two?"]
    (tmp_path / "bad.json").write_text('{"questions": [{"persona": "x"}]}')
    with pytest.raises(InputError, match="item 0"):
        read_questions(tmp_path / "bad.json")
    (tmp_path / "empty.txt").write_text("# only a comment\n\n")
    with pytest.raises(InputError, match="no questions"):
        read_questions(tmp_path / "empty.txt")
