"""Map batches sized to the endpoint: reports packed into batches within a token
budget - MAP_CONTEXT_TOKENS, or less when the endpoint's window is known - and a batch the
endpoint refuses as over its window (any provider's wording: ``llm.endpoint.context_refused``)
split and mapped again, the window remembered with the endpoint's capabilities
(``llm.endpoint.Capabilities``, key ``context_tokens``) so the next question does not meet the
refusal again. A batch that cannot be made to fit is a listed failure.

A small window is shared before the input is cut: the completion reserve (LLM_MAX_TOKENS)
is lowered first, down to a quarter of the window, and never takes more than half of it
(``completion_reserve``): a reply needs less room than the reports it is about. The window
comes from llama.cpp's ``GET /props`` (read once per client) or from the first refusal (its
message names it): while it is unknown the first batch goes alone, and the others are packed
by what its refusal taught instead of each meeting the same refusal."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ...config import Settings
from ...errors import ConfigError, Failure, LLMError
from ...llm import LLM
from ...llm.endpoint import WINDOW_KEY, served_ctx, window_fix, window_in
from ...model import ReportRow, Trace
from ...prompts import csv_table, render
from ...stages import Stage
from ...tokens import count, count_recurring, truncate

T = TypeVar("T")
CONTEXT_LENGTH = "context_length"  # transport's reason for a prompt over the model's window
# the capability: the largest map budget a batch of which fit while the window was unknown
FITS_KEY = "map_budget_fits"
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
    with its capabilities), the server's n_ctx (``read_served_window``) or, for the local
    server, LLM_CTX - the smallest."""
    known = [w for w in (llm.caps.get(WINDOW_KEY), llm.caps.served,
                         settings.services.llm_ctx if settings.llm.local else None) if w]
    return min(known) if known else None


async def read_served_window(llm: LLM) -> None:
    """Ask a llama.cpp server its window (``GET /props`` n_ctx) once per client, while none
    is known: kept for the run (``Capabilities.served``). Other endpoints do not say: their
    first refusal does."""
    caps = llm.caps
    if caps.served_read or known_window(llm, llm.settings) is not None:
        return
    caps.served_read = True
    caps.served = await asyncio.to_thread(served_ctx, llm.settings.llm.endpoint)


def completion_reserve(llm: LLM, settings: Settings, frame: list[dict[str, str]],
                       wanted: int) -> int:
    """The completion cap for a prompt of ``frame`` (its messages without the data) and
    ``wanted`` tokens of data: LLM_MAX_TOKENS while the known window holds all three; else
    what the window leaves after the prompt, at least a quarter of it and at most half (the
    prompt keeps at least half the window), never over LLM_MAX_TOKENS."""
    cap = settings.llm.max_tokens
    window = known_window(llm, settings)
    if not window:
        return cap
    usable = int(window * 0.9)  # a tenth kept free: our tokenizer is not the model's
    left = usable - count("\n".join(m["content"] for m in frame), settings.encoding) - wanted
    return cap if left >= cap else min(cap, max(usable // 4, min(usable // 2, left)))


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


def _map_frame(question: str) -> list[dict[str, str]]:
    return render("query/map", context="", question=question, min_points=3)


def map_completion(llm: LLM, settings: Settings, question: str) -> int:
    """A map call's completion cap: LLM_MAX_TOKENS, lowered in a small window
    (``completion_reserve``) before the reports are cut."""
    return completion_reserve(llm, settings, _map_frame(question),
                              settings.query.map_context_tokens)


def map_budget(llm: LLM, settings: Settings, question: str) -> int:
    """The tokens a map batch's reports table may take: MAP_CONTEXT_TOKENS, or less when the
    endpoint's window is known (``known_window``) and the map prompt and its completion
    (``map_completion``) leave less room in it (``room_in_window``)."""
    budget = settings.query.map_context_tokens
    room = room_in_window(llm, settings, _map_frame(question),
                          map_completion(llm, settings, question))
    return budget if room is None else max(MIN_MAP_TOKENS, min(budget, room))


async def map_all(llm: LLM, settings: Settings, question: str, reports: list[ReportRow],
                  trace: Trace, one: Callable[[list[ReportRow]], Awaitable[list[T]]]
                  ) -> list[list[T]]:
    """``reports`` packed into batches (``batches`` within ``map_budget``; their number in
    ``trace.map_batches``) and ``one`` run over each, all at once - but while the window is
    unknown, and no map prompt that long is known to have fit (``FITS_KEY``), the first batch
    goes alone and the others are packed again by what it taught."""
    await read_served_window(llm)
    enc, seed = settings.encoding, settings.query.shuffle_seed
    budget = map_budget(llm, settings, question)
    groups = batches(reports, budget, seed, enc, trace)
    trace.map_batches = len(groups)
    if (len(groups) < 2 or known_window(llm, settings) is not None
            or budget <= (llm.caps.get(FITS_KEY) or 0)):
        return list(await asyncio.gather(*(one(g) for g in groups)))
    failed = len(trace.failures)
    first = await one(groups[0])
    if known_window(llm, settings) is None and len(trace.failures) == failed:
        # it fit: a question with batches this size needs no first batch alone again
        llm.caps.set(FITS_KEY, max(budget, llm.caps.get(FITS_KEY) or 0))
    rest = [r for g in groups[1:] for r in g]
    if (now := map_budget(llm, settings, question)) != budget:  # a window learnt
        regrouped = [groups[0], *batches(rest, now, seed, enc, trace)]
        trace.map_batches += len(regrouped) - len(groups)
        groups = regrouped
    return [first, *await asyncio.gather(*(one(g) for g in groups[1:]))]


def learn_window(llm: LLM, sent: int, err: LLMError) -> None:
    """Remember the window a context-length refusal names (else ``sent``, the tokens of the
    refused prompt and its completion cap: the window is under it) with the endpoint's
    capabilities: the next call is sized by it instead of meeting the refusal again. A
    prompt refused within the window already learnt (the model counts more tokens than we
    do, or names a bound that is not its own) lowers it by 15 %."""
    named = window_in(str(err)) or sent
    have = llm.caps.get(WINDOW_KEY)
    if have and sent <= have <= named:
        named = int(have * 0.85)
    if not have or named < have:
        llm.caps.set(WINDOW_KEY, named)


async def split_refused(llm: LLM, settings: Settings, question: str, batch: list[ReportRow],
                        trace: Trace, err: LLMError,
                        again: Callable[[list[ReportRow], int], Awaitable[list[T]]],
                        depth: int) -> list[T]:
    """After ``batch`` was refused as over the endpoint's window (``err``): the window
    learnt, the batch packed again by the budget it leaves (in halves when that changes
    nothing) and mapped ``again`` (a lone report cut to half its tokens, up to 4 times); a
    batch that cannot be made to fit is a listed failure (``trace.failures``), never dropped
    silently."""
    enc = settings.encoding
    # the window is under what was sent: the table plus the completion
    learn_window(llm, count(report_table(batch), enc) + map_completion(llm, settings, question),
                 err)
    if len(batch) > 1:
        groups = batches(batch, map_budget(llm, settings, question),
                         settings.query.shuffle_seed, enc, trace)
        if len(groups) < 2:
            groups = [batch[:len(batch) // 2], batch[len(batch) // 2:]]
        trace.map_batches += len(groups) - 1
        parts = await asyncio.gather(*(again(g, depth) for g in groups))
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
