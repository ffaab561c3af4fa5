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
from .endpoint import Capabilities
from .health import Health
from .reply import INVALID, ReplyFault
from .transport import Target, open_client

NO_DATA = "no_data"  # an HTTP-200 body without a data list
Vector = list[float]
WINDOW, BATCH = "embed_window", "embed_batch"  # the capabilities learnt from refusals


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


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
        # request the endpoint takes; None until refused. Remembered per endpoint + model with
        # the chat endpoint's capabilities (not in the response cache: a run with
        # LLM_CACHE=false starts with them too)
        self.caps = Capabilities(settings, f"embedding|{self.target.url}|{self.target.model}")
        self.window: int | None = _positive(self.caps.get(WINDOW))
        self.batch: int | None = _positive(self.caps.get(BATCH))
        # a down endpoint (persistent 503s) fails the other requests at once (llm.health)
        self.health = Health("embedding", self.target.url, settings.llm.max_retries + 1)

    @property
    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = open_client(
                self.target.url, self.settings.embedding.key(self.settings.llm), self.settings)
        return self._client

    def learnt(self, window: int | None = None, batch: int | None = None) -> None:
        """Set and remember the ``window`` or ``batch`` a refusal taught."""
        for name, value in ((WINDOW, window), (BATCH, batch)):
            if value is not None:
                setattr(self, "window" if name == WINDOW else "batch", value)
                self.caps.set(name, value)

    def limits(self) -> str | None:
        """What was learnt, for `doctor` (None: nothing)."""
        said = [f"batches of {self.batch} inputs" if self.batch else "",
                f"inputs cut to {self.window} tokens" if self.window else ""]
        return (f"learnt from its refusals: {' and '.join(s for s in said if s)} (remembered "
                f"in {self.caps.path})") if any(said) else None

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
