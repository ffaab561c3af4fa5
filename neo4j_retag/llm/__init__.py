"""The one way to talk to an LLM: the `openai` client against any OpenAI-compatible endpoint.

Async with a concurrency limit, tenacity retries on 429 (honouring Retry-After) / 5xx / timeouts
(``transport``), replies checked before use (``reply``: envelope, sanitising, truncation, loops,
repair), unusable replies retried (with more room, a frequency penalty or a nudge, by what was
wrong), refused parameters adapted once (``endpoint``), token accounting by pipeline stage,
fault counts by reason, a disk cache of responses (keyed by model, messages and parameters -
never the key, the base URL or the stage header) storing only accepted ones. Embeddings:
``embeddings``."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import diskcache
from pydantic import BaseModel

from ..checks.degenerate import Subject
from ..config import Settings
from ..errors import LLMError, LLMParseError
from ..stages import Stage
from .answer_faults import answer_fault, free_text
from .embeddings import Endpoint
from .endpoint import ADAPTABLE, DROPPABLE, Capabilities, refused_param
from .health import Health
from .reply import (
    EMPTY,
    INVALID,
    TRUNCATED,
    Reply,
    ReplyFault,
    parse_json,
    read_envelope,
)
from .retry import Retry
from .schema import (
    FALLBACK,
    JSON,
    MAX_FIELD_CHARS,
    bound_schema,
    bounded,
    response_format,
    schema_of,
)
from .structured import accepted, validator
from .transport import FirstReply, open_client, send
from .usage import Accounted, Usage, counting

__all__ = ["LLM", "Usage", "ReplyFault", "Subject", "counting", "parse_json", "run_with_llm",
           "bound_schema"]
log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

def run_with_llm(settings: Settings, fn: Callable[[LLM], Awaitable[T]],
                 usage: Usage | None = None) -> T:
    """Run ``fn(llm)`` to completion from synchronous code, closing the client after."""

    async def go() -> T:
        async with LLM(settings, usage) as llm:
            return await fn(llm)

    return asyncio.run(go())


class LLM(Accounted):
    """Chat completions with caching, retries, reply checks, structured output and accounting.

    Transport faults (429 honouring Retry-After, 5xx, timeouts, dropped connections) and
    unusable replies (``llm_reply`` reasons: empty, truncated, unparseable, refused ...) are
    retried up to ``LLM_MAX_RETRIES`` more times; every one is counted in ``usage.faults``.
    """

    def __init__(self, settings: Settings, usage: Usage | None = None) -> None:
        self.settings = settings
        self.own_usage = usage or Usage()
        self.client = open_client(settings.llm.endpoint,
                                  settings.llm.api_key.get_secret_value(), settings)
        self.semaphore = asyncio.Semaphore(settings.llm.parallel)
        self.first = FirstReply()  # a wrong endpoint costs one request (transport.send)
        # a down endpoint (persistent 503s) fails the other calls at once (llm.health)
        self.health = Health("LLM", settings.llm.endpoint, settings.llm.max_retries + 1)
        self.caps = Capabilities(settings)
        mode = settings.llm.json_mode
        self.json_explicit = mode != "auto"
        # llama.cpp's server enforces {"type": "json_object", "schema": ...} by grammar and
        # rejects OpenAI's json_schema form; remote APIs get json_schema first
        default = "json_object" if settings.llm.local else "json_schema"
        self.json_mode = (self.caps.get("json_mode") or default) if mode == "auto" else mode
        self.cache = diskcache.Cache(str(settings.cache_dir)) if settings.llm.cache else None
        self.embedding = Endpoint(settings)  # llm.embeddings.Embedder.of(llm) uses it

    async def close(self) -> None:
        await self.client.close()
        await self.embedding.close()
        if self.cache is not None:
            self.cache.close()

    async def __aenter__(self) -> LLM:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _key(self, messages: list[dict[str, str]], params: JSON) -> str:
        blob = json.dumps([self.settings.llm.model, messages, params], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()

    def _wire(self, params: JSON) -> JSON:
        """The request parameters as this endpoint takes them (see Capabilities)."""
        out = dict(params)
        if self.caps.get("max_tokens_param") == "max_completion_tokens":
            out["max_completion_tokens"] = out.pop("max_tokens")
        for name in DROPPABLE:
            if self.caps.get(name) is False:
                out.pop(name, None)
        return out

    async def _send(self, stage: str, messages: list[dict[str, str]], params: JSON) -> Any:
        """One request with transport retries; the decoded JSON body."""
        return await send(self.client, self.settings, self.usage, self.semaphore, stage,
                          messages, self._wire(params), self.first, self.health)

    async def _call(self, stage: str, messages: list[dict[str, str]], params: JSON) -> Reply:
        """One request, adapting once to a parameter the endpoint refuses; the checked reply.
        Raises ReplyFault for an unusable envelope, LLMError / ConfigError otherwise."""
        while True:
            try:
                body = await self._send(stage, messages, params)
                break
            except LLMError as err:
                refused = refused_param(err.__cause__)
                if refused in ADAPTABLE and self.caps.adapt(refused):
                    log.warning("the endpoint refuses %s: adapted (remembered in %s)",
                                refused, self.caps.path)
                    self.usage.stage(stage).failed -= 1  # adapted to: not a failed call
                    continue
                raise
        st = self.usage.stage(stage)
        st.calls += 1
        prompt = "\n".join(str(m.get("content", "")) for m in messages)
        reply = read_envelope(body, prompt, self.settings.encoding)
        if "nousage" not in reply.repairs and (line := self.usage.check_prompt(
                stage, prompt, reply.prompt_tokens, self.settings.encoding)):
            log.warning("%s", line)
        st.prompt_tokens += reply.prompt_tokens
        st.completion_tokens += reply.completion_tokens
        for r in reply.repairs:  # the envelope's own (think, nousage ...): whatever comes next
            self.usage.fault(r)
        reply.repairs = []  # from here: what parsing repairs, counted if the reply is used
        return reply

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        stage: Stage,
        max_tokens: int | None = None,
        validate: Callable[[str, list[str]], Any] | None = None,
        response_format: JSON | None = None,
        truncation_ok: bool = False,
        attempts: int | None = None,
        prose: bool = False,
        subject: Subject | None = None,
        on_refusal: Callable[[ReplyFault], None] | None = None,
    ) -> Any:
        """One chat completion; returns ``validate(text, repairs)`` (or the checked text);
        ``validate`` appends the harmless defects it repaired to ``repairs``. ``prose``: the
        reply is an answer's free text, so JSON or an echo of the system prompt (an injected
        template) is ``invalid``, and text that answers nothing (``checks.degenerate``: repeated
        lines, a looping phrase, the question echoed, nothing of ``subject``'s context) is
        ``degenerate``: asked again once with ``frequency_penalty`` raised, then the call
        fails (never cached, and a cached reply that is degenerate is asked again).
        ``attempts``
        (default LLM_MAX_RETRIES + 1) bounds the tries of an optional call (a gleaning round).
        ``on_refusal`` gets every reply an answer check refused (``ReplyFault.verdict`` set),
        a retried one too: the caller keeps it in the trace.

        An unusable reply (``llm.reply`` reasons; ``validate`` raising LLMParseError) is
        retried up to LLM_MAX_RETRIES times: a truncated one with a larger completion cap,
        a free-text one cut off repeating itself (``loop``) at the same cap with
        ``frequency_penalty`` raised by LOOP_PENALTY (more room if the endpoint refuses the
        penalty), an unparseable or invalid one first as it was, then with the error as a
        nudge (in the system message, so the request's data stays as it was), others as they
        were. Cached
        only when accepted.
        Raises ReplyFault (its ``reason`` names the last fault), LLMError or ConfigError.
        """
        params: JSON = {
            "temperature": self.settings.llm.temperature,
            "max_tokens": max_tokens or self.settings.llm.max_tokens,
        }
        if response_format:
            params["response_format"] = response_format
        # the key hashes the whole prompt: only worth it with a cache to look in
        key = self._key(messages, params) if self.cache is not None else ""
        # a cached answer is checked again: a check added since may refuse it
        if self.cache is not None and (hit := self.cache.get(key)) is not None and not (
                prose and validate is None and answer_fault(
                    hit, messages[0]["content"], subject, self.settings.llm.answer_check)):
            self.usage.stage(stage).cached += 1
            return validate(hit, []) if validate else hit
        retry = Retry(messages, params, self.caps, self.settings, prose)
        attempts = attempts or self.settings.llm.max_retries + 1
        last: ReplyFault | None = None
        tries = 0
        for _ in range(attempts):
            tries += 1
            try:
                reply = await self._call(stage, retry.msgs, retry.params)
                if validate is None:
                    text = free_text(reply, stage=stage, system=messages[0]["content"],
                                     prose=prose, subject=subject, truncation_ok=truncation_ok,
                                     check=self.settings.llm.answer_check)
                    result: Any = text
                else:
                    if reply.finish_reason == "length" and not truncation_ok:
                        raise ReplyFault(TRUNCATED, "the reply hit the completion cap "
                                         "(finish_reason length)", reply.text)
                    if not reply.text.strip():
                        raise ReplyFault(EMPTY, "the reply is empty")
                    text = reply.text
                    result = validate(text, reply.repairs)
            except LLMParseError as err:
                fault = err if isinstance(err, ReplyFault) else ReplyFault(INVALID, str(err),
                                                                           err.raw)
                self.usage.fault(fault.reason)
                if on_refusal is not None and fault.verdict is not None:
                    on_refusal(fault)
                last = fault
                if not retry.after(fault):
                    break
                continue
            for r in reply.repairs:
                self.usage.fault(r)
            if self.cache is not None and text.strip():
                self.cache.set(key, text)  # under the first request: a rerun gets it free
            return result
        self.usage.stage(stage).failed += 1
        assert last is not None
        raise ReplyFault(last.reason, f"{stage}: no usable reply after {tries} attempts "
                         f"(last: {last.detail})", last.raw, last.verdict)

    async def structured(
        self,
        messages: list[dict[str, str]],
        model: type[M],
        *,
        stage: Stage,
        max_tokens: int | None = None,
        attempts: int | None = None,
        accept: Callable[[M], str | None] | None = None,
    ) -> M:
        """A completion parsed into ``model``: JSON-schema output where the endpoint takes it,
        a tolerant parser otherwise (harmless defects repaired, truncation refused).
        ``accept(result)`` says why a parsed result is no answer (e.g. every map point
        degenerate), or None: such a reply is ``degenerate`` (asked again once with a
        repetition penalty, see ``complete``). Raises ReplyFault (an LLMParseError) when no
        attempt gave valid output."""

        schema = schema_of(model)
        cap = self.settings.llm
        small = bounded(model, cap.schema_max_items, cap.schema_max_chars)
        # a model with its own bounds (extraction records) checks them whatever the mode,
        # record by record and counted; the schema then only holds the reply's shape
        own = getattr(model, "OWN_BOUNDS", False)
        # text fields cut at MAX_FIELD_CHARS at most, whatever LLM_SCHEMA_MAX_CHARS says
        context = {"max_items": cap.schema_max_items,
                   "max_chars": min(cap.schema_max_chars, MAX_FIELD_CHARS)}
        while True:
            sent = small if self.json_mode == "json_object" else schema
            fmt = response_format(self.json_mode, model.__name__, sent)
            parse = validator(model, stage, schema if own else sent, context if own else None)
            try:
                check = accept if self.settings.llm.answer_check else None
                return await self.complete(messages, stage=stage, max_tokens=max_tokens,
                                           validate=accepted(parse, check, stage),
                                           response_format=fmt, attempts=attempts)
            except LLMError as err:
                nxt = FALLBACK.get(self.json_mode)
                if (self.json_explicit or nxt is None or fmt is None
                        or refused_param(err.__cause__) != "response_format"):
                    raise
                log.warning("the endpoint refuses response_format %s: using %s (remembered "
                            "in %s)", self.json_mode, nxt, self.caps.path)
                self.usage.stage(stage).failed -= 1  # adapted to: not a failed call
                # remembered with its reason: `doctor` says why JSON mode is what it is
                self.caps.refuse_json(self.json_mode, str(err), nxt)
                self.json_mode = nxt  # the endpoint refuses this form: stop asking for it

