"""What of an ingest the LLM response cache already holds, for `ingest --estimate`. Each
new text unit's extraction request is looked up under the key the real call uses - made by
the LLM client itself, run dry: a request the cache does not answer is never sent - so the
estimate counts the hits instead of guessing them; each text unit's vector (and the
dimension probes') likewise, under the embedder's key.

The stages after extraction (summaries, reports, topics) are built from what the extraction
replies put in the graph, so a text unit whose reply is cached has theirs cached too, as long
as the prompts they build come out the same whatever order the graph returns rows in (the
report prompt's claims are ordered for it: ``index.reports.local_context``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import diskcache

from ..config import Settings
from ..errors import LLMError
from ..llm import LLM, Usage
from ..llm.embeddings import cache_key
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


def cached_vectors(settings: Settings, texts: Sequence[str]) -> list[bool]:
    """Whether the response cache holds each of ``texts``' vectors (all False with
    LLM_CACHE off or embeddings disabled). No request is sent."""
    if not settings.llm.cache or not settings.embedding.enabled or not texts:
        return [False] * len(texts)
    with diskcache.Cache(str(settings.cache_dir)) as cache:
        return [cache_key(settings, t) in cache for t in texts]


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
