"""A reply that loops, with the real local model: SmolLM2-135M answers this reduce prompt (the
corpus-description question over the sample corpus's map points, captured from an ingest) by
repeating one paragraph until the completion cap at temperature 0. The client must see the
loop, retry with a frequency penalty, and return text that does not loop."""

import asyncio
import json
from pathlib import Path

import pytest

from neo4j_retag.llm import LLM, Usage
from neo4j_retag.llm.reply import looping

pytestmark = [pytest.mark.integration, pytest.mark.llm]
MESSAGES = json.loads((Path(__file__).parent / "looping_reduce.json").read_text())


def test_a_looping_reply_is_retried_with_a_frequency_penalty(real_settings):
    async def go():
        async with LLM(real_settings, Usage()) as llm:
            return await llm.complete(MESSAGES, stage="reduce", max_tokens=400), llm.usage
    text, usage = asyncio.run(go())
    assert usage.faults.get("loop", 0) >= 1, usage.faults  # it looped at least once ...
    assert text.strip() and not looping(text)  # ... and the answer kept is not a loop
    assert usage.stages["reduce"].failed == 0
