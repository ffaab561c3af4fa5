"""Embeddings through the `openai` client's ``/v1/embeddings`` on any OpenAI-compatible endpoint
(``settings.embedding``: EMBEDDING_MODEL, EMBEDDING_BASE_URL, EMBEDDING_API_KEY,
EMBEDDING_DIMENSIONS, EMBEDDING_BATCH), or, with neither EMBEDDING_BASE_URL nor OPENAI_BASE_URL
set, by the local model in process (``local_embedding``: all-minilm-l6-v2 on fastembed).

By the chat client's rules: transport faults retried (``transport.request``: 429 honouring
Retry-After, 5xx, timeouts), an unusable reply (no data, a wrong count, non-numbers, another
dimension than the others) retried up to ``LLM_MAX_RETRIES`` times, then the items fail one by
one (a failed batch is retried item by item, so one bad input fails only itself, as a
``errors.Failure``); a vector of zeros, NaN or another length is an unusable reply, never
stored. An input the endpoint refuses as longer than the model's window is truncated to the
window its message names (else three quarters of the input, until it fits), the window
remembered for the other inputs, each truncation counted (``embed_truncated``) and
logged; a request refused for holding too many inputs sets the batch the endpoint takes
(logged once, naming EMBEDDING_BATCH) and is split, never met again per input. Both limits
are remembered per endpoint + model apart from the response cache (``Endpoint.learnt``), so
the next run starts with them, LLM_CACHE=false or not. Vectors
cached on disk under model + dimensions + text (never the key, the URL or the stage);
requests, tokens, cached inputs and failures counted per stage in the same ``Usage`` as
chat calls, so `stats`, the trace and `ingest --estimate` show them.

``Embedder.of(llm)`` shares the LLM client's usage, cache and endpoint connection (one per
``LLM``, closed with it); ``Embedder(settings)`` stands alone (``async with``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
from collections.abc import Sequence
from typing import Any, Protocol

import diskcache

from .. import tokens
from ..config import Settings
from ..errors import ConfigError, Failure, LLMError
from ..stages import Stage
from . import local_embedding
from .embed_endpoint import Endpoint, Vector, read_vectors
from .endpoint import batch_refused, window_in
from .reply import EMPTY, ReplyFault
from .transport import STAGE_HEADER, not_chat, request
from .usage import Accounted, Usage

TRUNCATED = "embed_truncated"  # an input cut to the embedding model's window
log = logging.getLogger(__name__)


def cache_key(settings: Settings, text: str) -> str:
    """The response cache's key of ``text``'s vector: model, dimensions and text (never the
    URL, the key or the stage), so `ingest --estimate` can look it up too."""
    e = settings.embedding
    blob = json.dumps(["embedding", e.model, e.dimensions, text])
    return hashlib.sha256(blob.encode()).hexdigest()


class Client(Protocol):
    """What an embedder shares with the chat client (``llm.LLM``; not imported: it imports
    this module)."""

    settings: Settings
    own_usage: Usage
    cache: diskcache.Cache | None
    embedding: Endpoint


class Embedder(Accounted):
    """Texts -> vectors, batched, cached, retried, counted (see the module doc)."""

    def __init__(self, settings: Settings, usage: Usage | None = None, *,
                 endpoint: Endpoint | None = None, cache: diskcache.Cache | None = None) -> None:
        self.settings = settings
        self.own_usage = usage or Usage()
        self._own = endpoint is None
        self.endpoint = endpoint or Endpoint(settings)
        if self._own and cache is None and settings.llm.cache:
            cache = diskcache.Cache(str(settings.cache_dir))
        self.cache = cache
        # expected length: EMBEDDING_DIMENSIONS, else learnt from the first reply
        self.dimensions: int | None = settings.embedding.dimensions

    @classmethod
    def of(cls, llm: Client) -> Embedder:
        """An embedder sharing ``llm``'s own usage account (and, like it, counting in the
        context's inside :func:`.usage.counting`), response cache and connection."""
        return cls(llm.settings, llm.own_usage, endpoint=llm.embedding, cache=llm.cache)

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
        return cache_key(self.settings, text)

    async def _call(self, texts: list[str], stage: str) -> list[Vector]:
        """One request for ``texts`` (transport retries inside); raises ReplyFault, LLMError,
        ConfigError."""
        e, ep = self.settings.embedding, self.endpoint
        if ep.local:
            return await self._in_process(texts, stage)
        extra: dict[str, Any] = {"dimensions": e.dimensions} if e.dimensions else {}
        while True:
            fmt = ep.encoding
            try:
                body = await request(
                    lambda fmt=fmt: ep.client.embeddings.with_raw_response.create(
                        model=e.model, input=texts, encoding_format=fmt,  # type: ignore[arg-type]
                        extra_headers={STAGE_HEADER: stage}, **extra),
                    self.settings, self.usage, ep.semaphore, stage, ep.target, ep.health)
                break
            except LLMError as err:
                if fmt != "base64" or "encoding_format" not in str(err):
                    raise
                self.usage.stage(stage).failed -= 1  # adapted to: not a failed call
                ep.encoding = "float"  # the endpoint takes only JSON floats
        st = self.usage.stage(stage)
        if not (isinstance(body, dict) and body.keys() & {"data", "error", "object"}):
            st.failed += 1  # "pong", [], {"status": "ok"}: no embeddings API, for any call
            raise not_chat(self.settings, body, "embeddings list", ep.target)
        st.calls += 1
        vectors, pt = read_vectors(body, len(texts), self.dimensions)
        if pt is None:
            self.usage.fault("nousage")
            pt = sum(tokens.count(t, self.settings.encoding) for t in texts)
        st.prompt_tokens += pt
        self.dimensions = self.dimensions or len(vectors[0])
        return vectors

    async def _in_process(self, texts: list[str], stage: str) -> list[Vector]:
        """``_call`` on the local model (``local_embedding``, in a worker thread): its vectors pass
        the same checks as a reply; its usage is the word pieces it read. Raises ConfigError
        (runtime or files missing, settings it cannot serve), LLMError (the model failed on
        these inputs), ReplyFault."""
        local_embedding.check(self.settings)
        st = self.usage.stage(stage)
        t0 = 0.0
        try:
            async with self.endpoint.semaphore:
                t0 = time.perf_counter()
                model = await asyncio.to_thread(local_embedding.model, self.settings)
                vectors, n = await asyncio.to_thread(model.embed, texts)
        except ConfigError:
            st.failed += 1
            raise
        except Exception as err:  # noqa: BLE001 - onnxruntime's own errors: these inputs fail
            st.failed += 1
            raise LLMError(f"{stage}: the local embedding model failed: {err}") from err
        finally:
            if t0:
                st.seconds += time.perf_counter() - t0
        st.calls += 1
        vectors, _ = read_vectors({"data": [{"index": i, "embedding": v}
                                            for i, v in enumerate(vectors)]},
                                  len(texts), self.dimensions)
        st.prompt_tokens += n
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

    async def embed_items(self, items: dict[str, str], *, stage: Stage = Stage.EMBED
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
        ep = self.endpoint
        size = min(self.settings.embedding.batch, ep.batch or self.settings.embedding.batch)

        async def one_batch(batch: list[tuple[str, str]]) -> None:
            texts = [self._fit(t, stage) for _, t in batch]
            try:
                vectors = await self._batch(texts, stage)
            except ConfigError:
                raise
            except LLMError as err:
                if len(batch) > 1 and self._learn_batch(len(batch), str(err)):
                    assert ep.batch is not None
                    await asyncio.gather(*(one_batch(batch[i:i + ep.batch])
                                           for i in range(0, len(batch), ep.batch)))
                    return
                if err.reason == "context_length" and self._learn_window(texts, str(err)):
                    await one_batch(batch)  # again, each input within the window learnt
                    return
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

    def _fit(self, text: str, stage: str) -> str:
        """``text`` cut to the window learnt (counted as ``embed_truncated``)."""
        window, enc = self.endpoint.window, self.settings.encoding
        if window is None or tokens.count(text, enc) <= window:
            return text
        self.usage.fault(TRUNCATED)
        return tokens.truncate(text, window, enc)

    def _learn_window(self, texts: list[str], message: str) -> bool:
        """Lower the window after a context-length refusal of ``texts``: the one the message
        names, a tenth kept free (our tokenizer is not the model's), else three quarters of
        the longest input. False when nothing shorter is left to try."""
        ep, enc = self.endpoint, self.settings.encoding
        longest = max(tokens.count(t, enc) for t in texts)
        named = window_in(message)
        new = int(named * 0.9) if named else longest * 3 // 4
        if new >= longest:  # the window named is met by our count: the model counts more
            new = longest * 3 // 4
        if new < 8:
            return False
        if ep.window is None:
            log.warning("the embedding endpoint refused an input of %d tokens as longer than "
                        "%s's window: inputs are truncated to %d tokens (counted as %s)",
                        longest, self.model, new, TRUNCATED)
        ep.learnt(window=new if ep.window is None else min(ep.window, new))
        return True

    def _learn_batch(self, n: int, message: str) -> bool:
        """After a request of ``n`` inputs was refused for holding too many: the endpoint's
        batch (the number its message names, else half), logged once. False when the refusal
        is about something else."""
        if not batch_refused(message):
            return False
        named = [int(x) for x in re.findall(r"\b(\d+)\b", message) if 0 < int(x) < n]
        new = max(1, min(named) if named else n // 2)
        if self.endpoint.batch is None or new < self.endpoint.batch:
            log.warning("the embedding endpoint refused %d inputs in one request: batches of %d "
                        "from now on (set EMBEDDING_BATCH=%d; it is %d)", n, new, new,
                        self.settings.embedding.batch)
            self.endpoint.learnt(batch=new)
        return True

    async def embed(self, texts: Sequence[str], *, stage: Stage = Stage.EMBED_QUERY
                    ) -> list[Vector]:
        """One vector per text, in order. Raises LLMError (the first item that failed) or
        ConfigError."""
        items = {str(i): t for i, t in enumerate(texts)}
        vectors, failures = await self.embed_items(items, stage=stage)
        if failures:
            f = failures[0]
            raise LLMError(f"{stage}: {f.error}", f.reason)
        return [vectors[str(i)] for i in range(len(texts))]

    async def probe(self, stage: Stage = Stage.EMBED) -> int:
        """The endpoint's dimension, asked with one short input (not cached). Raises
        LLMError / ConfigError."""
        self.dimensions = self.settings.embedding.dimensions
        return len((await self._batch(["dimension probe"], stage))[0])
