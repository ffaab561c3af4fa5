"""Embeddings through the `openai` client's ``/v1/embeddings`` on any OpenAI-compatible endpoint
(``settings.embedding``: EMBEDDING_MODEL, EMBEDDING_BASE_URL, EMBEDDING_API_KEY,
EMBEDDING_DIMENSIONS, EMBEDDING_BATCH; issue 19).

By the chat client's rules: transport faults retried (``transport.request``: 429 honouring
Retry-After, 5xx, timeouts), an unusable reply (no data, a wrong count, non-numbers, another
dimension than the others) retried up to ``LLM_MAX_RETRIES`` times, then the items fail one by
one (a failed batch is retried item by item, so one bad input fails only itself, as a
``model.Failure``); vectors cached on disk under model + dimensions + text (never the key,
the URL or the stage); requests, tokens, cached inputs and failures counted per stage in the
same ``Usage`` as chat calls, so `stats`, the trace and `ingest --estimate` show them.

``Embedder.of(llm)`` shares the LLM client's usage, cache and endpoint connection (one per
``LLM``, closed with it); ``Embedder(settings)`` stands alone (``async with``).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import math
import struct
from collections.abc import Sequence
from typing import Any, Protocol

import diskcache
import openai

from .. import tokens
from ..config import Settings
from ..errors import ConfigError, LLMError
from ..model import Failure
from .reply import EMPTY, INVALID, ReplyFault
from .transport import STAGE_HEADER, Target, request
from .usage import Usage

EMBED = "embed"  # ingest's embed stage: text units, entity descriptions, community reports
EMBED_QUERY = "embed_query"  # a question's (or a hypothetical answer's) vector at query time
NO_DATA = "no_data"  # an HTTP-200 body without a data list
Vector = list[float]


class Client(Protocol):
    """What an embedder shares with the chat client (``llm.LLM``; not imported: it imports
    this module)."""

    settings: Settings
    usage: Usage
    cache: diskcache.Cache | None
    embedding: Endpoint


def target(settings: Settings) -> Target:
    """The embeddings endpoint and the settings that name it (for one-line errors)."""
    e = settings.embedding
    inherited = not e.base_url and settings.llm.base_url  # the chat endpoint's, by default
    return Target("embedding", e.endpoint(settings.llm), e.model,
                  "OPENAI_BASE_URL (or set EMBEDDING_BASE_URL)" if inherited
                  else "EMBEDDING_BASE_URL",
                  "EMBEDDING_API_KEY" if e.api_key else "OPENAI_API_KEY (or EMBEDDING_API_KEY)",
                  "EMBEDDING_MODEL", "neo4j-retag embed start" if e.local(settings.llm) else None)


class Endpoint:
    """The connection to the embeddings endpoint: an ``openai`` client made on first use,
    and the limit on parallel requests (1 for the local server, LLM_CONCURRENCY or 8 for a
    remote API). One per ``LLM``; copies of that LLM share it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.target = target(settings)
        local = settings.embedding.local(settings.llm)
        self.semaphore = asyncio.Semaphore(1 if local else settings.llm.parallel)
        self._client: openai.AsyncOpenAI | None = None
        # vectors as base64 float32 (a fifth of the JSON floats' bytes, decoded without a JSON
        # float parser); "float" after an endpoint refused it
        self.encoding = "base64"

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
    usage = body.get("usage")
    pt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    return vectors, pt if isinstance(pt, int) else None


class Embedder:
    """Texts -> vectors, batched, cached, retried, counted (see the module doc)."""

    def __init__(self, settings: Settings, usage: Usage | None = None, *,
                 endpoint: Endpoint | None = None, cache: diskcache.Cache | None = None) -> None:
        self.settings = settings
        self.usage = usage or Usage()
        self._own = endpoint is None
        self.endpoint = endpoint or Endpoint(settings)
        if self._own and cache is None and settings.llm.cache:
            cache = diskcache.Cache(str(settings.cache_dir))
        self.cache = cache
        # expected length: EMBEDDING_DIMENSIONS, else learnt from the first reply
        self.dimensions: int | None = settings.embedding.dimensions

    @classmethod
    def of(cls, llm: Client) -> Embedder:
        """An embedder sharing ``llm``'s usage account, response cache and connection."""
        return cls(llm.settings, llm.usage, endpoint=llm.embedding, cache=llm.cache)

    async def close(self) -> None:
        if self._own:
            await self.endpoint.close()
            if self.cache is not None:
                self.cache.close()

    async def __aenter__(self) -> Embedder:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def model(self) -> str:
        return self.settings.embedding.model

    def _key(self, text: str) -> str:
        e = self.settings.embedding
        blob = json.dumps(["embedding", e.model, e.dimensions, text])
        return hashlib.sha256(blob.encode()).hexdigest()

    async def _call(self, texts: list[str], stage: str) -> list[Vector]:
        """One request for ``texts`` (transport retries inside); raises ReplyFault, LLMError,
        ConfigError."""
        e, ep = self.settings.embedding, self.endpoint
        extra: dict[str, Any] = {"dimensions": e.dimensions} if e.dimensions else {}
        while True:
            fmt = ep.encoding
            try:
                body = await request(
                    lambda fmt=fmt: ep.client.embeddings.with_raw_response.create(
                        model=e.model, input=texts, encoding_format=fmt,  # type: ignore[arg-type]
                        extra_headers={STAGE_HEADER: stage}, **extra),
                    self.settings, self.usage, ep.semaphore, stage, ep.target)
                break
            except LLMError as err:
                if fmt != "base64" or "encoding_format" not in str(err):
                    raise
                self.usage.stage(stage).failed -= 1  # adapted to: not a failed call
                ep.encoding = "float"  # the endpoint takes only JSON floats
        st = self.usage.stage(stage)
        st.calls += 1
        vectors, pt = read_vectors(body, len(texts), self.dimensions)
        if pt is None:
            self.usage.fault("nousage")
            pt = sum(tokens.count(t, self.settings.encoding) for t in texts)
        st.prompt_tokens += pt
        self.dimensions = self.dimensions or len(vectors[0])
        return vectors

    async def _batch(self, texts: list[str], stage: str) -> list[Vector]:
        """``_call`` with an unusable reply asked again, up to LLM_MAX_RETRIES times."""
        last: ReplyFault | None = None
        for _ in range(self.settings.llm.max_retries + 1):
            try:
                return await self._call(texts, stage)
            except ReplyFault as fault:
                self.usage.fault(fault.reason)
                last = fault
        assert last is not None
        raise ReplyFault(last.reason, f"{stage}: no usable embeddings after "
                         f"{self.settings.llm.max_retries + 1} attempts (last: {last.detail})")

    async def embed_items(self, items: dict[str, str], *, stage: str = EMBED
                          ) -> tuple[dict[str, Vector], list[Failure]]:
        """Vectors by item id, and the items that failed (empty text; no usable reply after
        the retries, each item alone). A text shared by several items (a report reused at
        another level) is embedded once. Raises ConfigError (wrong URL, key or model: every
        item would fail alike)."""
        out: dict[str, Vector] = {}
        failures: list[Failure] = []
        todo: list[tuple[str, str]] = []
        same: dict[str, list[str]] = {}  # text -> the items sharing it: embedded once
        for item, text in items.items():
            if not text.strip():
                failures.append(Failure.of(item, "empty text: nothing to embed", EMPTY))
            elif text in same:
                same[text].append(item)
            elif self.cache is not None and (hit := self.cache.get(self._key(text))) is not None:
                out[item] = hit
                same[text] = [item]
                self.usage.stage(stage).cached += 1
            else:
                todo.append((item, text))
                same[text] = [item]
        size = self.settings.embedding.batch

        async def one_batch(batch: list[tuple[str, str]]) -> None:
            try:
                vectors = await self._batch([t for _, t in batch], stage)
            except ConfigError:
                raise
            except LLMError as err:
                if len(batch) > 1:  # which input is at fault: each alone
                    await asyncio.gather(*(one_batch([pair]) for pair in batch))
                    return
                self.usage.stage(stage).failed += isinstance(err, ReplyFault)
                failures.append(Failure.of(batch[0][0], err))
                return
            for (item, text), vector in zip(batch, vectors, strict=True):
                out[item] = vector
                if self.cache is not None:
                    self.cache.set(self._key(text), vector)

        await asyncio.gather(*(one_batch(todo[i:i + size]) for i in range(0, len(todo), size)))
        for group in same.values():  # the items that share a text share its fate
            first = group[0]
            for item in group[1:]:
                if first in out:
                    out[item] = out[first]
            if first not in out:
                failures += [f.model_copy(update={"item": item}) for f in failures
                             if f.item == first for item in group[1:]]
        return out, failures

    async def embed(self, texts: Sequence[str], *, stage: str = EMBED_QUERY) -> list[Vector]:
        """One vector per text, in order. Raises LLMError (the first item that failed) or
        ConfigError."""
        items = {str(i): t for i, t in enumerate(texts)}
        vectors, failures = await self.embed_items(items, stage=stage)
        if failures:
            f = failures[0]
            raise LLMError(f"{stage}: {f.error}", f.reason)
        return [vectors[str(i)] for i in range(len(texts))]

    async def probe(self, stage: str = EMBED) -> int:
        """The endpoint's dimension, asked with one short input (not cached). Raises
        LLMError / ConfigError."""
        self.dimensions = self.settings.embedding.dimensions
        return len((await self._batch(["dimension probe"], stage))[0])


async def embed_question(llm: Client, text: str, stage: str = EMBED_QUERY) -> Vector:
    """The vector of a question (or a hypothetical answer) for nearest-node queries, counted
    in ``llm``'s usage (the trace's). Raises LLMError / ConfigError."""
    return (await Embedder.of(llm).embed([text], stage=stage))[0]
