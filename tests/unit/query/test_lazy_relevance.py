"""The lazy method's relevance test costs one output token: Y or N after the question and the
passage, read leniently; an unreadable reply is asked again, then the test fails."""

from __future__ import annotations

import asyncio

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import LLMError
from neo4j_retag.llm import LLM, Usage
from neo4j_retag.query.lazy_relevance import relevant


def _ask(double, tmp_path, passage="The harbour reopens.", **extra):
    s = Settings(**{"openai_base_url": double.base_url, "openai_model": "double",
                    "llm_cache": False, "llm_cache_dir": tmp_path / "c", "llm_max_retries": 3,
                    **extra})

    async def go():
        async with LLM(s, Usage()) as llm:
            return await relevant(llm, "What happens to the harbour?", passage), llm.usage
    return asyncio.run(go())


def test_one_token_is_asked_and_a_letter_read(double, tmp_path):
    double.script["relevance"] = lambda b: "Y"
    got, usage = _ask(double, tmp_path)
    assert got is True and usage.stages["relevance"].calls == 1
    body = next(b for k, b in double.calls if k == "relevance")
    assert body["max_tokens"] == 1 and "response_format" not in body and "logit_bias" not in body
    user = body["messages"][-1]["content"]
    assert user.index("What happens to the harbour?") < user.index("The harbour reopens.")
    double.script["relevance"] = lambda b: "No"
    assert _ask(double, tmp_path)[0] is False


def test_an_unreadable_reply_is_asked_again_then_nudged_then_fails(double, tmp_path):
    replies = iter(["Well", "Well", "Y"])
    double.script["relevance"] = lambda b: next(replies)
    got, usage = _ask(double, tmp_path)
    assert got is True and usage.stages["relevance"].calls == 3
    nudged = [b for k, b in double.calls if k == "relevance"][-1]
    assert "neither Y nor N" in nudged["messages"][0]["content"]
    double.script["relevance"] = lambda b: "Perhaps"
    with pytest.raises(LLMError, match="neither Y nor N"):
        _ask(double, tmp_path)


def test_llm_max_retries_bounds_the_attempts(double, tmp_path):
    double.script["relevance"] = lambda b: "Perhaps"
    before = double.count("relevance")
    with pytest.raises(LLMError):
        _ask(double, tmp_path, llm_max_retries=0)
    assert double.count("relevance") - before == 1


def test_the_local_server_is_given_the_reply_s_start(double, tmp_path):
    # the double stands for the local server on its port: llama.cpp continues the turn
    port = int(double.base_url.rsplit(":", 1)[1].split("/")[0])
    double.script["relevance"] = lambda b: "Answer: N"  # as llama.cpp returns a continued turn
    got, _ = _ask(double, tmp_path, openai_base_url=None, llm_port=port)
    assert got is False
    body = [b for k, b in double.calls if k == "relevance"][-1]
    assert body["messages"][-1] == {"role": "assistant", "content": "Answer:"}
    double.script["relevance"] = lambda b: "Y"
    _ask(double, tmp_path)  # a remote endpoint: no assistant turn it may refuse
    body = [b for k, b in double.calls if k == "relevance"][-1]
    assert body["messages"][-1]["role"] == "user"
