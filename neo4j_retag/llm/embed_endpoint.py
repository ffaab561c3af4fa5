"""The embeddings endpoint: its connection (or, with no endpoint set, the local model in
process: ``local_embedding``) and what it has been found to take, and the checks every embeddings
reply passes before a vector is used (``read_vectors``)."""

from __future__ import annotations

import asyncio
import base64
import math
import struct
from typing import Any

import openai

from ..config import Settings
from .reply import INVALID, ReplyFault
from .transport import Target

NO_DATA = "no_data"  # an HTTP-200 body without a data list
Vector = list[float]


def target(settings: Settings) -> Target:
    """The embeddings endpoint and the settings that name it (for one-line errors)."""
    e = settings.embedding
    inherited = not e.base_url and settings.llm.base_url  # the chat endpoint's, by default
    return Target("embedding", e.endpoint(settings.llm), e.model,
                  "OPENAI_BASE_URL (or set EMBEDDING_BASE_URL)" if inherited
                  else "EMBEDDING_BASE_URL",
                  "EMBEDDING_API_KEY" if e.api_key else "OPENAI_API_KEY (or EMBEDDING_API_KEY)",
                  "EMBEDDING_MODEL", None)


class Endpoint:
    """The connection to the embeddings endpoint: an ``openai`` client made on first use,
    and the limit on parallel requests (1 for the local model, whose one batch at a time
    uses every thread it has; LLM_CONCURRENCY or 8 for a remote API). One per ``LLM``; copies
    of that LLM share it. ``local``: the local model embeds in process (no client)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.target = target(settings)
        self.local = local = settings.embedding.local(settings.llm)
        self.semaphore = asyncio.Semaphore(1 if local else settings.llm.parallel)
        self._client: openai.AsyncOpenAI | None = None
        # vectors as base64 float32 (a fifth of the JSON floats' bytes, decoded without a JSON
        # float parser); "float" after an endpoint refused it
        self.encoding = "base64"
        # learnt from refusals: the longest input (our tokens) and the most inputs per
        # request the endpoint takes; None until refused
        self.window: int | None = None
        self.batch: int | None = None

    @property
    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = openai.AsyncOpenAI(
                base_url=self.target.url,
                api_key=self.settings.embedding.key(self.settings.llm),
                timeout=self.settings.llm.timeout, max_retries=0)  # tenacity owns retries
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _vector(value: Any) -> Vector:
    if isinstance(value, str):  # encoding_format base64: little-endian float32
        raw = base64.b64decode(value)
        return list(struct.unpack(f"<{len(raw) // 4}f", raw))
    if not isinstance(value, list) or not value:
        raise ReplyFault(INVALID, f"an embedding is a {type(value).__name__}, not a list")
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in value):
        raise ReplyFault(INVALID, "an embedding holds something other than numbers")
    return [float(x) for x in value]


def read_vectors(body: Any, n: int, dimensions: int | None) -> tuple[list[Vector], int | None]:
    """The ``n`` vectors of an embeddings body in input order, and its prompt tokens (None
    when it sent no usage). Raises ReplyFault: ``no_data``, or ``invalid`` for a wrong
    count, non-numbers, NaN, or vectors of another length than ``dimensions`` or each other."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        err = body.get("error") if isinstance(body, dict) else None
        raise ReplyFault(NO_DATA, f"HTTP 200 without a data list{f': {err}' if err else ''}")
    if len(data) != n:
        raise ReplyFault(INVALID, f"{len(data)} embeddings for {n} inputs")
    rows = sorted(data, key=lambda d: d.get("index", 0) if isinstance(d, dict) else 0)
    vectors = [_vector(d.get("embedding") if isinstance(d, dict) else None) for d in rows]
    sizes = {len(v) for v in vectors}
    if len(sizes) > 1 or (dimensions and sizes != {dimensions}):
        got = ", ".join(map(str, sorted(sizes)))
        raise ReplyFault(INVALID, f"embeddings of {got} dimensions"
                         + (f" where {dimensions} were expected" if dimensions else ""))
    if any(not math.isfinite(x) for v in vectors for x in v):
        raise ReplyFault(INVALID, "an embedding holds NaN or infinity")
    if any(not any(v) for v in vectors):  # cosine similarity is undefined for it
        raise ReplyFault(INVALID, "an embedding is all zeros")
    usage = body.get("usage")
    pt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return vectors, pt if isinstance(pt, int) else None
