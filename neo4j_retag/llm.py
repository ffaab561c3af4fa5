"""The one way to talk to an LLM: the `openai` client against any OpenAI-compatible endpoint.

Async with a concurrency limit, tenacity retries on 429/5xx/timeouts, token accounting by
pipeline stage, a disk cache of responses (keyed by model, messages and parameters - never
the key or base URL) that stores only responses that parsed and validated.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import diskcache
import json_repair
import openai
from pydantic import BaseModel, ValidationError
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from .config import Settings
from .errors import ConfigError, LLMError, LLMParseError

JSON = dict[str, Any]  # a JSON object: request parameters, a JSON schema, a response format
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

RETRYABLE = (
    openai.RateLimitError,
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.InternalServerError,
)


@dataclass
class StageUsage:
    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class Usage:
    """LLM calls and tokens per pipeline stage (extract, glean, summarize, report, map ...)."""

    stages: dict[str, StageUsage] = field(default_factory=dict)

    def stage(self, name: str) -> StageUsage:
        return self.stages.setdefault(name, StageUsage())

    @property
    def total(self) -> StageUsage:
        t = StageUsage()
        for s in self.stages.values():
            for k in vars(t):
                setattr(t, k, getattr(t, k) + getattr(s, k))
        return t

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {k: dict(vars(v)) for k, v in sorted(self.stages.items())}


def run_with_llm(settings: Settings, fn: Callable[[LLM], Awaitable[T]],
                 usage: Usage | None = None) -> T:
    """Run ``fn(llm)`` to completion from synchronous code, closing the client after."""

    async def go() -> T:
        async with LLM(settings, usage) as llm:
            return await fn(llm)

    return asyncio.run(go())


def parse_json(text: str) -> Any:
    """Tolerant JSON: code fences, prose around it, trailing commas, truncated output.

    Raises ValueError when nothing JSON-like can be recovered.
    """
    body = re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", text.strip(), flags=re.I)
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        pass
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError("no JSON object in the completion")
    value = json_repair.loads(body[start:])
    if value in ("", None, [], {}) and body[start:].strip() not in ("{}", "[]"):
        raise ValueError("no JSON object could be repaired from the completion")
    return value


class LLM:
    """Chat completions with caching, retries, structured output and accounting."""

    def __init__(self, settings: Settings, usage: Usage | None = None) -> None:
        self.settings = settings
        self.usage = usage or Usage()
        self.client = openai.AsyncOpenAI(
            base_url=settings.llm_base_url,
            api_key=settings.openai_api_key.get_secret_value(),
            timeout=settings.llm_timeout,
            max_retries=0,  # tenacity owns retries
        )
        self.semaphore = asyncio.Semaphore(settings.concurrency)
        mode = settings.llm_json_mode
        self.json_explicit = mode != "auto"
        # llama.cpp's server enforces {"type": "json_object", "schema": ...} by grammar and
        # rejects OpenAI's json_schema form; remote APIs get json_schema first
        self.json_mode = ("json_object" if settings.local_llm else "json_schema") \
            if mode == "auto" else mode
        self.cache = (diskcache.Cache(str(settings.cache_dir)) if settings.llm_cache
                      else None)

    async def close(self) -> None:
        await self.client.close()
        if self.cache is not None:
            self.cache.close()

    async def __aenter__(self) -> LLM:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _key(self, messages: list[dict[str, str]], params: JSON) -> str:
        blob = json.dumps([self.settings.openai_model, messages, params], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()

    async def _call(self, stage: str, messages: list[dict[str, str]],
                    params: JSON) -> str:
        st = self.usage.stage(stage)
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(RETRYABLE),
            stop=stop_after_attempt(self.settings.llm_max_retries + 1),
            wait=wait_exponential_jitter(initial=1, max=30),
            reraise=True,
        )
        t0 = 0.0
        try:
            async with self.semaphore:
                t0 = time.perf_counter()  # time at the endpoint, not queued behind the limit
                async for attempt in retrying:
                    with attempt:
                        resp = await self.client.chat.completions.create(
                            model=self.settings.openai_model, messages=messages, **params
                        )
        except openai.APIConnectionError as err:
            st.failed += 1
            hint = ("run `neo4j-retag llm start`" if self.settings.local_llm
                    else "check OPENAI_BASE_URL")
            raise ConfigError(
                f"cannot reach the LLM at {self.settings.llm_base_url}: {hint}") from err
        except openai.AuthenticationError as err:
            st.failed += 1
            raise ConfigError("the LLM endpoint rejected the key: check OPENAI_API_KEY") from err
        except openai.NotFoundError as err:
            st.failed += 1
            raise ConfigError(f"model {self.settings.openai_model!r} not found at the "
                              "endpoint: check OPENAI_MODEL") from err
        except openai.OpenAIError as err:
            st.failed += 1
            raise LLMError(f"{stage}: LLM call failed: {err}") from err
        finally:
            if t0:
                st.seconds += time.perf_counter() - t0
        st.calls += 1
        if resp.usage:
            st.prompt_tokens += resp.usage.prompt_tokens or 0
            st.completion_tokens += resp.usage.completion_tokens or 0
        return resp.choices[0].message.content or ""

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        stage: str,
        max_tokens: int | None = None,
        validate: Callable[[str], Any] | None = None,
        response_format: JSON | None = None,
    ) -> Any:
        """One chat completion; returns ``validate(text)`` (or the text).

        Cached only when ``validate`` accepted it. Raises LLMError / ConfigError.
        """
        params: JSON = {
            "temperature": self.settings.llm_temperature,
            "max_tokens": max_tokens or self.settings.llm_max_tokens,
        }
        if response_format:
            params["response_format"] = response_format
        key = self._key(messages, params)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.usage.stage(stage).cached += 1
            return validate(hit) if validate else hit
        text = await self._call(stage, messages, params)
        result = validate(text) if validate else text
        if self.cache is not None and text.strip():
            self.cache.set(key, text)
        return result

    async def structured(
        self,
        messages: list[dict[str, str]],
        model: type[M],
        *,
        stage: str,
        max_tokens: int | None = None,
    ) -> M:
        """A completion parsed into ``model``: JSON-schema output where the endpoint takes it,
        a tolerant parser otherwise. Raises LLMParseError when the output cannot be repaired."""

        def validate(text: str) -> M:
            try:
                return model.model_validate(parse_json(text))
            except (ValueError, ValidationError) as err:
                raise LLMParseError(f"{stage}: unparseable output ({err})", text) from err

        schema = _schema(model)
        bounded = _bounded(model, self.settings.llm_schema_max_items,
                           self.settings.llm_schema_max_chars)
        while True:
            fmt = response_format(self.json_mode, model.__name__,
                                  bounded if self.json_mode == "json_object" else schema)
            try:
                return await self.complete(messages, stage=stage, max_tokens=max_tokens,
                                           validate=validate, response_format=fmt)
            except LLMError as err:
                nxt = FALLBACK.get(self.json_mode)
                if self.json_explicit or nxt is None or not _format_refused(err):
                    raise
                self.json_mode = nxt  # the endpoint refuses this form: stop asking for it


FALLBACK = {"json_schema": "json_object", "json_object": "off"}


def response_format(mode: str, name: str, schema: JSON) -> JSON | None:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


@functools.lru_cache(maxsize=128)
def _schema(model: type[BaseModel]) -> JSON:
    return model.model_json_schema()


@functools.lru_cache(maxsize=128)
def _bounded(model: type[BaseModel], max_items: int, max_chars: int) -> JSON:
    return bound_schema(_schema(model), max_items, max_chars)


def bound_schema(schema: Any, max_items: int, max_chars: int) -> Any:
    """A copy of ``schema`` for grammar-constrained output: maxItems / maxLength on every
    array / string that lacks one, and every property required (a small model under a grammar
    otherwise answers ``{}``; the pydantic defaults still cover endpoints that omit fields)."""
    if isinstance(schema, list):
        return [bound_schema(s, max_items, max_chars) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bound_schema(v, max_items, max_chars) for k, v in schema.items()}
    if out.get("type") == "array":
        out.setdefault("maxItems", max_items)
    if out.get("type") == "string" and "enum" not in out:
        out.setdefault("maxLength", max_chars)
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        out["required"] = list(out["properties"])
    return out


def _format_refused(err: LLMError) -> bool:
    cause = err.__cause__
    if isinstance(cause, openai.BadRequestError | openai.UnprocessableEntityError):
        return True
    return isinstance(cause, openai.InternalServerError) and "response_format" in str(cause)
