"""The one table of LLM pipeline stages (stages.py): its fields hold together, and a name
that is no stage fails the call that names it before anything is sent (a programming error,
never an HTTP 400 from the test double)."""

import asyncio

import pytest

from neo4j_retag.config import FLAT
from neo4j_retag.index.estimate import grouped
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.llm.embeddings import Embedder
from neo4j_retag.llm.endpoint import budget_setting
from neo4j_retag.llm.stream import complete_streaming
from neo4j_retag.model import LLMCost
from neo4j_retag.stages import KINDS, Stage, group_of, stage_of
from tests.unit.llm.test_client import settings_for

# the strings other stores key on (usage rows in the graph, estimate calibration rows, trace
# llm_stages, the X-Retag-Stage header): the table may grow, never rename one of these
KEPT = {"extract", "glean", "claims", "summarize", "topic_summary", "report", "map", "reduce",
        "reduce_partial", "answer", "classify", "route", "keywords", "rate", "refine_check",
        "topics", "topic_assign", "eval_judge", "eval_claims", "eval_questions", "doctor",
        "lazy_subqueries", "relevance", "lazy_claims", "lazy_answer", "lazy_report",
        "drift_hyde", "drift_primer", "drift_local", "drift_reduce", "embed", "embed_query",
        "nugget_embed"}


def test_the_names_others_key_on_are_kept():
    assert {s.value for s in Stage} >= KEPT


def test_every_stage_has_a_kind_a_budget_setting_and_a_group_that_is_a_stage():
    for s in Stage:
        assert s.kind in KINDS, s
        assert s.budget.lower() in FLAT, (s, s.budget)  # a real setting's name
        if s.group is not None:
            assert Stage(s.group).group == s.group, s  # a group is a stage of its own name
    # an ingest's estimate groups: what `ingest --estimate` and `stats` show
    assert {s.group for s in Stage if s.group} == {
        "extract", "glean", "claims", "summarize", "report", "topics", "embed"}
    assert {s for s in Stage if s.embeddings} == {Stage.EMBED, Stage.EMBED_QUERY,
                                                  Stage.NUGGET_EMBED}


def test_the_window_fix_and_the_estimate_groups_read_the_table():
    assert budget_setting(Stage.MAP) == "MAP_CONTEXT_TOKENS or LLM_MAX_TOKENS"
    assert budget_setting("extract") == "CHUNK_SIZE or LLM_MAX_TOKENS"
    assert budget_setting(Stage.DRIFT_REDUCE) == "REDUCE_CONTEXT_TOKENS or LLM_MAX_TOKENS"
    assert group_of(Stage.REDUCE_PARTIAL) == "topics" and group_of("classify") == "classify"
    usage = Usage()
    for s, calls in ((Stage.MAP, 3), (Stage.REDUCE, 1), (Stage.REDUCE_PARTIAL, 2),
                     (Stage.TOPICS, 1), (Stage.EXTRACT, 5)):
        usage.stage(s).calls += calls
    assert {k: v["calls"] for k, v in grouped(usage).items()} == {"topics": 7, "extract": 5}


def test_a_stage_is_kept_under_its_plain_name():
    usage = Usage()
    usage.stage(Stage.MAP).calls += 1
    usage.stage("map").calls += 1
    [key] = usage.stages
    assert type(key) is str and key == "map" and usage.stages["map"] == LLMCost(calls=2)
    assert stage_of("map") is Stage.MAP and stage_of(Stage.MAP) is Stage.MAP


@pytest.mark.parametrize("name", ["text", "Map", "reduce ", ""])
def test_a_name_that_is_no_stage_is_a_programming_error(name):
    with pytest.raises(ValueError, match="is no LLM stage: name it in neo4j_retag/stages.py"):
        stage_of(name)
    with pytest.raises(ValueError, match="is no LLM stage"):
        Usage().stage(name)


def test_a_call_naming_no_stage_fails_before_anything_is_sent(tmp_path, double):
    settings = settings_for(tmp_path, double)
    msgs = [{"role": "user", "content": "x"}]

    async def go():
        async with LLM(settings) as llm:
            for call in (lambda: llm.complete(msgs, stage="mapp"),
                         lambda: complete_streaming(llm, msgs, stage="mapp",
                                                    on_token=lambda t: None)):
                with pytest.raises(ValueError, match="'mapp' is no LLM stage"):
                    await call()
            assert llm.usage.stages == {}
        async with Embedder(settings) as emb:
            with pytest.raises(ValueError, match="'embedd' is no LLM stage"):
                await emb.embed_items({"a": "text"}, stage="embedd")
    asyncio.run(go())
    assert double.count() == 0  # the double never saw them: no HTTP 400 to read
