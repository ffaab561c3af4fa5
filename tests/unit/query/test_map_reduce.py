from neo4j_retag.model import ReportRow
from neo4j_retag.query.map_reduce import batches


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


def _answer(tmp_path, map_handler):
    import asyncio
    import json

    from neo4j_retag.config import Settings
    from neo4j_retag.llm import LLM
    from neo4j_retag.model import Trace
    from neo4j_retag.query.map_reduce import map_reduce
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
    with pytest.raises(LLMError, match=r"(\d+) of \1 map batches could not be parsed"):
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
