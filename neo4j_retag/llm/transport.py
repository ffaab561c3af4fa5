"""One request to the endpoint: transport faults (429 honouring Retry-After, 5xx, timeouts,
dropped connections) retried with tenacity, every other failure turned into the error a user
can act on (ConfigError for a wrong URL, key or model; LLMError with a ``reason`` otherwise)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from ..config import Settings
from ..errors import ConfigError, LLMError, RetagError
from ..model import JSON
from ..stages import Stage
from .endpoint import context_refused, over_window, transport_reason, wait
from .health import DOWN, DOWN_STATUSES, EndpointDown, Health, answered
from .reply import blocked, filtered
from .usage import Usage

# every request names its pipeline stage (usage's key): a proxy, a log or a test double can
# tell the calls apart without reading the prompt; not part of the response-cache key
STAGE_HEADER = "X-Retag-Stage"
RETRYABLE = (
    openai.RateLimitError,
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.InternalServerError,
)


@dataclass(frozen=True)
class Target:
    """Where a request goes and the settings that name it, for the errors a user acts on:
    the chat endpoint (OPENAI_*) or the embeddings endpoint (EMBEDDING_*)."""

    what: str  # "LLM" | "embedding"
    url: str
    model: str
    url_var: str
    key_var: str
    model_var: str
    start_hint: str | None  # the command that starts the local server, when it is local

    @classmethod
    def chat(cls, settings: Settings) -> Target:
        return cls("LLM", settings.llm.endpoint, settings.llm.model, "OPENAI_BASE_URL",
                   "OPENAI_API_KEY", "OPENAI_MODEL",
                   "neo4j-retag llm start" if settings.llm.local else None)


def wrong_endpoint(settings: Settings, status: int, content_type: str, body: str,
                   target: Target | None = None) -> ConfigError:
    """The one line for a reply that is no API's: a web page, a proxy's login page, an empty
    body. Every later call would get the same, so the run stops at the first."""
    t = target or Target.chat(settings)
    snippet = " ".join(body.split())[:120]
    what = f"{snippet!r}" if snippet else "an empty body"
    return ConfigError(
        f"the {t.what} endpoint {t.url} answered HTTP {status} "
        f"{content_type or 'without a content type'}, not the API's JSON: {what}. Check "
        f"{t.url_var}: it is the API root, for most servers ending in /v1 "
        "(e.g. http://host:8000/v1), and a proxy may want you to log in first")


def _not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def chat_shaped(body: Any) -> bool:
    """True when ``body`` (a 200's decoded JSON) is a chat completion or an API's error
    object; ``"pong"``, ``[]``, ``{"status": "ok"}`` are some other service's answer."""
    return isinstance(body, dict) and (
        "choices" in body or "error" in body
        or str(body.get("object", "")).startswith("chat.completion"))


def not_chat(settings: Settings, body: Any, what: str = "chat completion",
             target: Target | None = None) -> ConfigError:
    """The one line for a 200 whose JSON is no chat completion (or no model list, no
    embeddings: ``what``): a health check, another service. Every later call would get the
    same."""
    t = target or Target.chat(settings)
    snippet = json.dumps(body, ensure_ascii=False)[:120]
    return ConfigError(
        f"the {t.what} endpoint {t.url} answered HTTP 200 with JSON that is no {what}: "
        f"{snippet}. Check {t.url_var}: it is the API root, for most servers ending in /v1 "
        "(e.g. http://host:8000/v1)")


def open_client(url: str, key: str, settings: Settings) -> openai.AsyncOpenAI:
    """The ``openai`` client for an endpoint: no retries of its own (``request`` owns them)
    and no redirect followed (``redirected`` says where it points instead)."""
    return openai.AsyncOpenAI(base_url=url, api_key=key, timeout=settings.llm.timeout,
                              max_retries=0, http_client=openai.DefaultAsyncHttpxClient(
                                  timeout=settings.llm.timeout, follow_redirects=False))


async def model_ids(client: openai.AsyncOpenAI, settings: Settings, usage: Usage,
                    semaphore: asyncio.Semaphore) -> list[str]:
    """The model ids the endpoint lists (GET /models, stage ``doctor``). Raises ConfigError in
    one line for a reply that is no API's: a web page (``wrong_endpoint``), JSON that is no
    model list (``not_chat``), an unreachable endpoint."""
    body = await request(lambda: client.models.with_raw_response.list(), settings, usage,
                         semaphore, Stage.DOCTOR, Target.chat(settings))
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        raise not_chat(settings, body, "model list")
    return [str(m.get("id")) for m in data]


class FirstReply:
    """Until one reply has shown that the endpoint speaks the chat API, requests go one at a
    time, and a call that waited while the one before it met a wrong endpoint (ConfigError)
    fails with that error without a request: a wrong endpoint costs one request, not one per
    call in flight. A call that starts later asks again (a long-lived client, `serve`, sees
    the endpoint come right)."""

    def __init__(self) -> None:
        self.ok = False
        self.failures = 0
        self.error: ConfigError | None = None
        self.lock = asyncio.Lock()


async def send(client: openai.AsyncOpenAI, settings: Settings, usage: Usage,
               semaphore: asyncio.Semaphore, stage: str, messages: list[dict[str, str]],
               params: JSON, first: FirstReply | None = None,
               health: Health | None = None) -> Any:
    """POST one chat completion (``params`` as the endpoint takes them); see ``request``.
    Raises ConfigError (``not_chat``) when the 200's JSON is no chat completion; with
    ``first``, only the first such reply of the calls in flight is paid for."""
    first = first or FirstReply()
    seen = first.failures

    async def one() -> Any:
        if first.failures > seen and first.error is not None:
            raise first.error  # it failed while this call waited: the same endpoint
        try:
            body = await request(
                lambda: client.chat.completions.with_raw_response.create(
                    model=settings.llm.model, messages=messages,
                    extra_headers={STAGE_HEADER: stage}, **params),
                settings, usage, semaphore, stage, Target.chat(settings), health)
            if not chat_shaped(body):
                usage.stage(stage).failed += 1
                raise not_chat(settings, body)
        except ConfigError as err:  # a web page, a wrong key: the same for every call
            first.failures += 1
            first.error = err
            raise
        first.ok = True
        return body

    if not first.ok:
        async with first.lock:  # the first reply alone: the others wait for its verdict
            if not first.ok:
                return await one()
    return await one()


async def request(call: Callable[[], Awaitable[Any]], settings: Settings, usage: Usage,
                  semaphore: asyncio.Semaphore, stage: str, target: Target,
                  health: Health | None = None) -> Any:
    """One request (``call`` returns the raw response) under ``semaphore``, with transport
    retries; the decoded JSON body. Raises ConfigError when the body is not JSON (a web page,
    a login page, nothing) or is a redirect: the endpoint is wrong, and every other call would
    meet the same. With ``health`` (the client's), a call fails at once while the endpoint is
    known down, and stops retrying when it goes down (``llm.health``). Seconds at the
    endpoint, failures and transport faults are counted in ``usage``."""
    st = usage.stage(stage)

    def count_retry(state: RetryCallState) -> None:
        err = state.outcome.exception() if state.outcome else None
        usage.fault(transport_reason(err))

    def retried(err: BaseException) -> bool:  # not once the endpoint is known down
        return isinstance(err, RETRYABLE) and (health is None or health.down() is None)

    retrying = AsyncRetrying(
        retry=retry_if_exception(retried),
        stop=stop_after_attempt(settings.llm.max_retries + 1),
        wait=wait, before_sleep=count_retry, reraise=True,
    )
    attempts = settings.llm.max_retries + 1
    t, t0 = target, 0.0
    try:
        async with semaphore:
            t0 = time.perf_counter()  # time at the endpoint, not queued behind the limit
            async for attempt in retrying:
                with attempt:
                    raw = await _attempt(call, health)
    except EndpointDown as err:
        st.failed += 1
        raise LLMError(f"{stage}: {err}", DOWN) from None
    except openai.APIStatusError as err:
        if 300 <= err.status_code < 400:  # not followed: a POST sent elsewhere is a wrong URL
            st.failed += 1
            raise redirected(err, t) from err
        if err.status_code in DOWN_STATUSES and health is not None and health.down():
            st.failed += 1
            usage.fault(transport_reason(err))
            raise LLMError(f"{stage}: {health.down()}", transport_reason(err)) from err
        raise _status_error(err, stage, settings, usage, t) from err
    except openai.APITimeoutError as err:  # before APIConnectionError: its subclass
        st.failed += 1
        usage.fault("timeout")
        raise LLMError(f"{stage}: the {t.what} endpoint timed out after {attempts} attempts "
                       f"(LLM_TIMEOUT {settings.llm.timeout:g} s)", "timeout") from err
    except openai.APIConnectionError as err:
        st.failed += 1
        hint = f"run `{t.start_hint}`" if t.start_hint else f"check {t.url_var}"
        raise ConfigError(f"cannot reach the {t.what} endpoint at {t.url}: {hint}") from err
    except openai.OpenAIError as err:
        st.failed += 1
        raise LLMError(f"{stage}: {t.what} call failed: {err}", "llm_error") from err
    finally:
        if t0:
            st.seconds += time.perf_counter() - t0
    if health is not None:
        health.ok()
    try:
        return json.loads(raw.text)  # whatever the content type says (text/plain is common)
    except ValueError:
        # a web page, a login page, an empty body: no retry, no other item, gets more
        raise wrong_endpoint(settings, raw.status_code, raw.headers.get("content-type", ""),
                             raw.text, t) from None


async def _attempt(call: Callable[[], Awaitable[Any]], health: Health | None) -> Any:
    """One try of ``call``, refused while the endpoint is known down; its error counted."""
    if health is None:
        return await call()
    health.check()
    try:
        return await call()
    except openai.APIStatusError as err:
        health.failed(err)
        raise


def redirected(err: openai.APIStatusError, t: Target) -> ConfigError:
    """The one line for a redirect (not followed: a POST sent to another place, with the key,
    is for the user to decide): its status and ``Location``, and the setting to change."""
    where = err.response.headers.get("location") or "no Location"
    return ConfigError(
        f"the {t.what} endpoint {t.url} answered HTTP {err.status_code} redirecting to "
        f"{where}: requests are not sent on to it. Set {t.url_var} to the API root the "
        "redirect names (for most servers ending in /v1)")


def _status_error(err: openai.APIStatusError, stage: str, settings: Settings, usage: Usage,
                  t: Target) -> RetagError:
    """The error for an HTTP error status after the retries (``err``): ConfigError for a
    wrong key, URL or model, LLMError naming the status and its reason otherwise."""
    usage.stage(stage).failed += 1
    if isinstance(err, openai.AuthenticationError):
        return ConfigError(f"the {t.what} endpoint rejected the key: check {t.key_var}")
    if isinstance(err, openai.NotFoundError):
        # a web server's 404 page, or a JSON 404 about no model ({"detail": "Not Found"}):
        # the path is wrong
        if _not_json(err.response.text) or "model" not in err.response.text.lower():
            return wrong_endpoint(settings, 404, err.response.headers.get("content-type", ""),
                                  err.response.text, t)
        return ConfigError(f"model {t.model!r} not found at the {t.what} endpoint: check "
                           f"{t.model_var}")
    if isinstance(err, openai.BadRequestError):
        if "content_filter" in str(err) or "content management policy" in str(err):
            usage.fault("content_filter")  # Azure answers a filtered prompt with a 400
            return LLMError(f"{stage}: {blocked(filtered(err.body))}", "content_filter")
        # a prompt over the model's window: the caller can split it (map batches, inputs);
        # said with the settings that fix it when nobody can
        if context_refused(str(err)):
            return LLMError(over_window(stage, settings.llm.local, settings.services.llm_ctx,
                                        str(err)), "context_length")
        return LLMError(f"{stage}: {t.what} call failed: {err}", "http400")
    if isinstance(err, openai.RateLimitError | openai.InternalServerError):
        usage.fault(transport_reason(err))
        attempts = settings.llm.max_retries + 1
        return LLMError(f"{stage}: the {t.what} endpoint answered {answered(err)} (after "
                        f"{attempts} attempt{'s' if attempts > 1 else ''})",
                        transport_reason(err))
    return LLMError(f"{stage}: {t.what} call failed: {err}", f"http{err.status_code}")
