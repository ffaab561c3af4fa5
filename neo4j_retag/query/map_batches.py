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

from ..config import Settings
from ..errors import Failure, LLMError
from ..llm import LLM
from ..llm.endpoint import window_in
from ..model import ReportRow, Trace
from ..prompts import csv_table, render
from ..tokens import count, count_recurring, truncate

T = TypeVar("T")
CONTEXT_LENGTH = "context_length"  # transport's reason for a prompt over the model's window
WINDOW_KEY = "context_tokens"  # the window learnt, in the endpoint's Capabilities
MIN_MAP_TOKENS = 256  # a map batch budget never goes below this (one report, truncated)


def report_table(reports: list[ReportRow]) -> str:
    return csv_table("Reports", ["id", "title", "content"],
                     [[r.id, r.title, r.full_content] for r in reports])


def batches(reports: list[ReportRow], max_tokens: int, seed: int,
            enc: str) -> list[list[ReportRow]]:
    """Shuffled reports packed into batches whose table fits ``max_tokens`` (a report over
    it alone is cut to half of it, wherever it falls in the shuffle)."""
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
            n = count(report_table([r]), enc)
        if cur and used + n > max_tokens:
            out.append(cur)
            cur, used = [], empty
        cur.append(r)
        used += n
    if cur:
        out.append(cur)
    return out


def map_budget(llm: LLM, settings: Settings, question: str) -> int:
    """The tokens a map batch's reports table may take: MAP_CONTEXT_TOKENS, or less when the
    endpoint's window is known (learnt from a refusal, remembered with its capabilities) and
    the map prompt and its completion (LLM_MAX_TOKENS) leave less room in it; a tenth of the
    window kept free (our tokenizer is not the model's)."""
    budget = settings.query.map_context_tokens
    window = llm.caps.get(WINDOW_KEY)
    if window:
        frame = render("query/map", context="", question=question, min_points=3)
        used = count("\n".join(m["content"] for m in frame), settings.encoding)
        room = int(window * 0.9) - used - settings.llm.max_tokens
        budget = max(MIN_MAP_TOKENS, min(budget, room))
    return budget


def _learn_window(llm: LLM, settings: Settings, batch: list[ReportRow], err: LLMError) -> None:
    """Remember the window a context-length refusal names (else a bound under the refused
    table's size) with the endpoint's capabilities: the next question sizes its batches by
    it instead of meeting the refusal again."""
    named = window_in(str(err))
    if named is None:  # the window is under what was sent: the table plus the completion
        named = count(report_table(batch), settings.encoding) + settings.llm.max_tokens
    have = llm.caps.get(WINDOW_KEY)
    if not have or named < have:
        llm.caps.set(WINDOW_KEY, named)


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
