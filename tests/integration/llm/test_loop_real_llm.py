"""A reply that loops, with the real local model: SmolLM2-135M answers this reduce prompt (the
corpus-description question over the sample corpus's map points, captured from an ingest) by
repeating one paragraph until the completion cap at temperature 0. The client must see the
loop, retry with a frequency penalty, and return text that does not loop - or, when every retry
loops too (llama.cpp's server: its penalties look back 64 tokens, a paragraph loop is longer),
fail the call as ``loop``: a looping text is never returned."""

import asyncio
import json
from pathlib import Path

import pytest

from neo4j_retag.llm import LLM, ReplyFault, Usage
from neo4j_retag.llm.reply import looping

pytestmark = [pytest.mark.integration, pytest.mark.llm]
MESSAGES = json.loads((Path(__file__).parent / "looping_reduce.json").read_text())


def test_a_looping_reply_is_retried_with_a_frequency_penalty(real_settings):
    usage = Usage()

    async def go():
        async with LLM(real_settings, usage) as llm:
            return await llm.complete(MESSAGES, stage="reduce", max_tokens=400)
    try:
        text = asyncio.run(go())
    except ReplyFault as err:  # every try looped: the call fails, naming the loop
        assert err.reason == "loop" and usage.stages["reduce"].failed == 1
        text = None
    assert usage.faults.get("loop", 0) >= 1, usage.faults  # it looped at least once ...
    sent = usage.stages["reduce"].calls
    assert sent >= 2  # ... and was asked again
    if text is not None:
        assert text.strip() and not looping(text)  # the answer kept is not a loop
        assert usage.stages["reduce"].failed == 0
