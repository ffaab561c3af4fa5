"""One request to the endpoint: transport faults (429 honouring Retry-After, 5xx, timeouts,
dropped connections) retried with tenacity, every other failure turned into the error a user
can act on (ConfigError for a wrong URL, key or model; LLMError with a ``reason`` otherwise)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from ..config import Settings
from ..errors import ConfigError, LLMError
from ..model import JSON
from .endpoint import transport_reason, wait
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


async def send(client: openai.AsyncOpenAI, settings: Settings, usage: Usage,
               semaphore: asyncio.Semaphore, stage: str, messages: list[dict[str, str]],
               params: JSON) -> Any:
    """POST one chat completion (``params`` as the endpoint takes them) under ``semaphore``;
    the decoded JSON body, or None when it is not JSON (``reply.read_envelope`` names that).
    Seconds at the endpoint, failures and transport faults are counted in ``usage``."""
    st = usage.stage(stage)

    def count_retry(state: RetryCallState) -> None:
        err = state.outcome.exception() if state.outcome else None
        usage.fault(transport_reason(err))

    retrying = AsyncRetrying(
        retry=retry_if_exception_type(RETRYABLE),
        stop=stop_after_attempt(settings.llm.max_retries + 1),
        wait=wait, before_sleep=count_retry, reraise=True,
    )
    attempts = settings.llm.max_retries + 1
    t0 = 0.0
    try:
        async with semaphore:
            t0 = time.perf_counter()  # time at the endpoint, not queued behind the limit
            async for attempt in retrying:
                with attempt:
                    raw = await client.chat.completions.with_raw_response.create(
                        model=settings.llm.model, messages=messages,
                        extra_headers={STAGE_HEADER: stage}, **params)
    except openai.APITimeoutError as err:  # before APIConnectionError: its subclass
        st.failed += 1
        usage.fault("timeout")
        raise LLMError(f"{stage}: the LLM timed out after {attempts} attempts "
                       f"(LLM_TIMEOUT {settings.llm.timeout:g} s)", "timeout") from err
    except openai.APIConnectionError as err:
        st.failed += 1
        hint = "run `neo4j-retag llm start`" if settings.llm.local else "check OPENAI_BASE_URL"
        raise ConfigError(f"cannot reach the LLM at {settings.llm.endpoint}: {hint}") from err
    except openai.AuthenticationError as err:
        st.failed += 1
        raise ConfigError("the LLM endpoint rejected the key: check OPENAI_API_KEY") from err
    except openai.NotFoundError as err:
        st.failed += 1
        raise ConfigError(f"model {settings.llm.model!r} not found at the endpoint: check "
                          "OPENAI_MODEL") from err
    except openai.OpenAIError as err:
        if isinstance(err, openai.RateLimitError | openai.InternalServerError):
            usage.fault(transport_reason(err))
        st.failed += 1
        reason = (transport_reason(err) if isinstance(
            err, openai.RateLimitError | openai.InternalServerError) else
            f"http{err.status_code}" if isinstance(err, openai.APIStatusError)
            else "llm_error")
        raise LLMError(f"{stage}: LLM call failed: {err}", reason) from err
    finally:
        if t0:
            st.seconds += time.perf_counter() - t0
    try:
        return json.loads(raw.text)
    except ValueError:
        return None  # read_envelope names it
