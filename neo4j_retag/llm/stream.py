"""A free-text completion streamed piece by piece (the answer a reader watches being written
by `serve`'s `/ask/stream`), checked like any other reply once it is complete.

The request is the one ``LLM.complete`` makes (same parameters, same cache key), so a streamed
answer and a CLI answer to the same question are the same reply. Streaming is the first
attempt only: a reply that proves unusable when complete (truncated, looping, empty,
refused), or a stream the endpoint refuses or drops, is asked again through
``LLM.complete`` with its retries, after ``on_token(None)`` tells the listener to start over.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import openai

from ..checks.degenerate import Subject
from ..errors import LLMParseError
from ..stages import Stage
from .answer_faults import answer_fault, free_text
from .endpoint import transport_reason
from .reply import (
    CONTENT_FILTER,
    TRUNCATED,
    ReplyFault,
    read_envelope,
)
from .transport import STAGE_HEADER

if TYPE_CHECKING:
    from . import LLM

log = logging.getLogger(__name__)


async def complete_streaming(llm: LLM, messages: list[dict[str, str]], *, stage: Stage,
                             on_token: Callable[[str | None], None], prose: bool = False,
                             subject: Subject | None = None,
                             on_refusal: Callable[[ReplyFault], None] | None = None,
                             max_tokens: int | None = None) -> str:
    """The checked text of one completion, its pieces given to ``on_token`` as they arrive.
    ``prose``, ``subject``, ``on_refusal`` and ``max_tokens`` as for ``LLM.complete`` (a
    document's template or instruction followed is invalid, text that answers nothing
    degenerate). Raises what
    ``LLM.complete`` raises."""
    params: dict[str, Any] = {"temperature": llm.settings.llm.temperature,
                              "max_tokens": max_tokens or llm.settings.llm.max_tokens}
    key = llm._key(messages, params)
    # a cached answer is checked again: a check added since may refuse it
    if llm.cache is not None and (hit := llm.cache.get(key)) is not None and not (
            prose and answer_fault(str(hit), messages[0]["content"], subject,
                                   llm.settings.llm.answer_check)):
        llm.usage.stage(stage).cached += 1
        on_token(hit)
        return str(hit)
    if llm.health.down() is not None:  # known down: the client's call fails at once, saying so
        return str(await llm.complete(messages, stage=stage, prose=prose, subject=subject,
                                      on_refusal=on_refusal, max_tokens=max_tokens))
    st = llm.usage.stage(stage)
    parts: list[str] = []
    opened = False  # the endpoint answered with a stream: the attempt is a call from here
    try:
        async with llm.semaphore:
            t0 = time.perf_counter()
            try:
                stream = await llm.client.chat.completions.create(
                    model=llm.settings.llm.model, messages=messages, stream=True,
                    stream_options={"include_usage": True},
                    extra_headers={STAGE_HEADER: stage}, **llm._wire(params))
                st.calls += 1  # counted now: a stream cut later was still a call
                opened = True
                finish, usage = None, None
                filters: list[Any] = []  # Azure's content_filter_results, per chunk
                async with stream:
                    async for chunk in stream:
                        if chunk.usage is not None:
                            usage = chunk.usage.model_dump()
                        for choice in chunk.choices:
                            if choice.delta and choice.delta.content:
                                parts.append(choice.delta.content)
                                on_token(choice.delta.content)
                            finish = choice.finish_reason or finish
                            if (extra := choice.model_extra or {}).get(
                                    "content_filter_results"):
                                filters.append(extra["content_filter_results"])
            finally:
                st.seconds += time.perf_counter() - t0
        if finish is None:  # no finish reason: the connection was cut mid-answer
            raise ReplyFault(TRUNCATED, f"{stage}: the stream ended without a finish reason",
                             "".join(parts))
        body = {"choices": [{"message": {"role": "assistant", "content": "".join(parts)},
                             "finish_reason": finish}], "usage": usage,
                "prompt_filter_results": filters}  # the categories a filter names
        prompt = "\n".join(str(m.get("content", "")) for m in messages)
        reply = read_envelope(body, prompt, llm.settings.encoding)
        if "nousage" not in reply.repairs and (line := llm.usage.check_prompt(
                stage, prompt, reply.prompt_tokens, llm.settings.encoding)):
            log.warning("%s", line)
        st.prompt_tokens += reply.prompt_tokens
        st.completion_tokens += reply.completion_tokens
        text = free_text(reply, stage=stage, system=messages[0]["content"], prose=prose,
                         subject=subject, check=llm.settings.llm.answer_check)
    except (openai.OpenAIError, LLMParseError) as err:
        # the stream as a first attempt only: the client's own retries take it from here
        log.warning("%s: the streamed reply is unusable (%s): asked again without streaming",
                    stage, err)
        if isinstance(err, openai.APIStatusError):
            llm.health.failed(err)  # a 503 here counts towards "down" as the client's do
        reason = getattr(err, "reason", None)
        if reason:
            llm.usage.fault(reason)
        elif isinstance(err, openai.OpenAIError):  # refused, unreachable or cut: a fault
            llm.usage.fault(_fault(err))
            if not opened:
                st.failed += 1  # an attempt that reached no stream (as transport counts it)
        if on_refusal is not None and isinstance(err, ReplyFault) and err.verdict is not None:
            on_refusal(err)
        if parts:
            on_token(None)
        if reason == CONTENT_FILTER:  # the same request meets the same filter
            llm.usage.stage(stage).failed += 1
            raise err
        text = str(await llm.complete(messages, stage=stage, prose=prose, subject=subject,
                                      on_refusal=on_refusal, max_tokens=max_tokens))
        on_token(text)
        return text
    for r in reply.repairs:
        llm.usage.fault(r)
    if llm.cache is not None and text.strip():
        llm.cache.set(key, text)
    return text


def _fault(err: openai.OpenAIError) -> str:
    """The fault a failed streamed attempt is counted under (transport's names)."""
    if isinstance(err, openai.APIStatusError) and not isinstance(
            err, openai.RateLimitError | openai.InternalServerError):
        return f"http{err.status_code}"
    return transport_reason(err)
