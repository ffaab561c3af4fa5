"""Map batches sized to the endpoint: reports packed into batches within a token
budget - MAP_CONTEXT_TOKENS, or less when the endpoint's window is known - and a batch the
endpoint refuses as over its window (any provider's wording: ``llm.endpoint.context_refused``)
split and mapped again, the window remembered with the endpoint's capabilities
(``llm.endpoint.Capabilities``, key ``context_tokens``) so the next question does not meet the
refusal again. A batch that cannot be made to fit is a listed failure."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ...config import Settings
from ...errors import ConfigError, Failure, LLMError
from ...llm import LLM
from ...llm.endpoint import WINDOW_KEY, window_fix, window_in
from ...model import ReportRow, Trace
from ...prompts import csv_table, render
from ...stages import Stage
from ...tokens import count, count_recurring, truncate

T = TypeVar("T")
CONTEXT_LENGTH = "context_length"  # transport's reason for a prompt over the model's window
MIN_MAP_TOKENS = 256  # a map batch budget never goes below this (one report, truncated)
MIN_DATA_TOKENS = 64  # a window with less room than this for a prompt's data is refused


def report_table(reports: list[ReportRow]) -> str:
    return csv_table("Reports", ["id", "title", "content"],
                     [[r.id, r.title, r.full_content] for r in reports])


def batches(reports: list[ReportRow], max_tokens: int, seed: int,
            enc: str, trace: Trace | None = None) -> list[list[ReportRow]]:
    """Shuffled reports packed into batches whose table fits ``max_tokens`` (a report over
    it alone is cut to half of it, wherever it falls in the shuffle, and a note in
    ``trace`` says which and by how much)."""
    items = list(reports)
    random.Random(seed).shuffle(items)
    out: list[list[ReportRow]] = []
    cur: list[ReportRow] = []
    empty = count(report_table([]), enc)
    used = empty
    for r in items:
        n = count_recurring(report_table([r]), enc) - empty
        if n > max_tokens - empty:  # over the budget alone (after a batch too): cut
            r = r.model_copy(update={"full_content": truncate(r.full_content, max_tokens // 2,
                                                              enc)})
            if trace is not None:  # what the map read of it is less than the report: said
                trace.note(f"report {r.id} cut from {n} to {max_tokens // 2} tokens to fit the "
                           f"map budget ({max_tokens} tokens: MAP_CONTEXT_TOKENS, or less in "
                           "the endpoint's window)")
            n = count(report_table([r]), enc)
        if cur and used + n > max_tokens:
            out.append(cur)
            cur, used = [], empty
        cur.append(r)
        used += n
    if cur:
        out.append(cur)
    return out


def known_window(llm: LLM, settings: Settings) -> int | None:
    """The endpoint's context window (tokens) when known: learnt from a refusal (remembered
    with its capabilities) or, for the local server, LLM_CTX - the smaller of the two."""
    known = [w for w in (llm.caps.get(WINDOW_KEY),
                         settings.services.llm_ctx if settings.llm.local else None) if w]
    return min(known) if known else None


def room_in_window(llm: LLM, settings: Settings, frame: list[dict[str, str]],
                   completion: int | None = None) -> int | None:
    """The tokens a prompt's data may take in the known window (None when unknown): the
    window, a tenth kept free (our tokenizer is not the model's), less the prompt's ``frame``
    (its messages without the data) and the completion (``completion``, else LLM_MAX_TOKENS)."""
    window = known_window(llm, settings)
    if not window:
        return None
    used = count("\n".join(m["content"] for m in frame), settings.encoding)
    return int(window * 0.9) - used - (completion or settings.llm.max_tokens)


def check_fits(llm: LLM, stage: Stage, frame: list[dict[str, str]]) -> None:
    """Raise ConfigError - one line naming LLM_CTX, before any call - when the local
    server's window cannot hold ``frame`` (a prompt without its data) and its completion with
    room for any data: every call would be refused (or cut). A window learnt from a refusal
    is left to the calls (a refusal may name a bound that is not the model's)."""
    settings = llm.settings
    if not settings.llm.local:
        return
    room = room_in_window(llm, settings, frame)
    if room is None or room >= MIN_DATA_TOKENS:
        return
    used = count("\n".join(m["content"] for m in frame), settings.encoding)
    raise ConfigError(f"{stage}: the prompt alone (~{used} tokens) and its completion "
                      f"(LLM_MAX_TOKENS {settings.llm.max_tokens}) leave no room for data in "
                      f"the LLM's window ({known_window(llm, settings)} tokens, a tenth kept "
                      f"free): {window_fix(stage, settings.llm.local, settings.services.llm_ctx)}")


def map_budget(llm: LLM, settings: Settings, question: str) -> int:
    """The tokens a map batch's reports table may take: MAP_CONTEXT_TOKENS, or less when the
    endpoint's window is known (``known_window``) and the map prompt and its completion
    (LLM_MAX_TOKENS) leave less room in it (``room_in_window``)."""
    budget = settings.query.map_context_tokens
    room = room_in_window(llm, settings, render("query/map", context="", question=question,
                                                min_points=3))
    return budget if room is None else max(MIN_MAP_TOKENS, min(budget, room))


def learn_window(llm: LLM, sent: int, err: LLMError) -> None:
    """Remember the window a context-length refusal names (else ``sent``, the tokens of the
    refused prompt and its completion cap: the window is under it) with the endpoint's
    capabilities: the next call is sized by it instead of meeting the refusal again."""
    named = window_in(str(err)) or sent
    have = llm.caps.get(WINDOW_KEY)
    if not have or named < have:
        llm.caps.set(WINDOW_KEY, named)


def _learn_window(llm: LLM, settings: Settings, batch: list[ReportRow], err: LLMError) -> None:
    # the window is under what was sent: the table plus the completion
    learn_window(llm, count(report_table(batch), settings.encoding) + settings.llm.max_tokens,
                 err)


async def split_refused(llm: LLM, settings: Settings, batch: list[ReportRow], trace: Trace,
                        err: LLMError, again: Callable[[list[ReportRow], int], Awaitable[list[T]]],
                        depth: int) -> list[T]:
    """After ``batch`` was refused as over the endpoint's window (``err``): the window
    learnt, the batch split in halves and mapped ``again`` (a lone report cut to half its
    tokens, up to 4 times); a batch that cannot be made to fit is a listed failure
    (``trace.failures``), never dropped silently."""
    _learn_window(llm, settings, batch, err)
    if len(batch) > 1:
        trace.map_batches += 1
        half = len(batch) // 2
        parts = await asyncio.gather(again(batch[:half], depth), again(batch[half:], depth))
        return [p for part in parts for p in part]
    r = batch[0]
    n = count(r.full_content, settings.encoding)
    if depth < 4 and n >= 64:
        cut = r.model_copy(update={"full_content": truncate(r.full_content, n // 2,
                                                            settings.encoding)})
        trace.note(f"report {r.id} cut to {n // 2} tokens: over the endpoint's window")
        return await again([cut], depth + 1)
    trace.map_failures += 1
    trace.failures.append(Failure.of(f"map batch of reports [{r.id}]", err))
    return []
