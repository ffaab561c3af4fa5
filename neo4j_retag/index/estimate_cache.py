"""What of an ingest the LLM response cache already holds: `ingest --estimate`
said 25 calls where the run, its replies cached by an earlier run, paid 1. Each new text
unit's extraction request is looked up under the key the real call uses - made by the LLM
client itself, run dry: a request the cache does not answer is never sent - so the estimate
counts the hits instead of guessing them."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..config import Settings
from ..errors import LLMError
from ..llm import LLM, Usage
from ..stages import Stage
from .extract import messages
from .extract_records import GraphClaimsExtraction, GraphExtraction


class _Miss(Exception):
    """The cache does not answer the request: it would be sent."""


class _DryLLM(LLM):
    """The LLM client with the endpoint left out: the cache answers, or ``_Miss``."""

    async def _call(self, stage: str, messages: list[dict[str, str]], params: Any) -> Any:
        raise _Miss


async def _hits(settings: Settings, texts: list[str]) -> int:
    combined = settings.index.extract_claims and settings.index.claims_call != "separate"
    model = GraphClaimsExtraction if combined else GraphExtraction
    hits = 0
    async with _DryLLM(settings, Usage()) as llm:
        for text in texts:
            try:
                await llm.structured(messages(settings, text, combined), model,
                                     stage=Stage.EXTRACT)
                hits += 1
            except (_Miss, LLMError):  # not cached, or cached but no longer valid: paid
                continue
    return hits


def cached_extractions(settings: Settings, texts: list[str]) -> int:
    """How many of ``texts`` (new text units) have their extraction reply in the response
    cache (0 with LLM_CACHE off). No request is sent."""
    if not settings.llm.cache or not texts:
        return 0
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_hits(settings, texts))
    # `ingest` estimates inside its own event loop: this lookup runs in a loop of its own
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(_hits(settings, texts))).result()
