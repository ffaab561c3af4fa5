"""The reduce step budgeted like map: its context (the map points as analyst reports) sized to
the endpoint's window, and split - a hierarchical reduce - when the points exceed it.

The points are chosen as GraphRAG chooses them (best first, until REDUCE_CONTEXT_TOKENS is
full). When the endpoint's window is known (``map_batches.known_window``: LLM_CTX for the
local server, or learnt from a refusal) and those points do not fit in it beside the reduce
prompt and its completion, they are packed into groups that do, each group is reduced to an
intermediate answer (stage ``reduce_partial``, the same prompt, a shorter completion), and
the intermediate answers are the final reduce's analyst reports - again, level by level, until
they fit. A final reduce refused as over the window teaches the window and is condensed
again. The levels, partial calls and cut points are trace notes; the partial calls and their
tokens are the usage's own stage, so ``trace.llm_stages``, `stats` and the cost line show them
beside map's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol, TypeVar

from ... import events
from ...errors import Failure, LLMError
from ...llm import LLM, Subject
from ...model import Trace
from ...prompts import fragment, render
from ...stages import Stage
from ...text import strip_chatter
from ...tokens import count, truncate
from ..common import complete_or_note, refused
from .map_batches import (
    CONTEXT_LENGTH,
    MIN_MAP_TOKENS,
    WINDOW_KEY,
    completion_reserve,
    known_window,
    learn_window,
    room_in_window,
)

# what a partial reduce is asked for: the final reduce reads it as one analyst's report
PARTIAL_RESPONSE = ("the key points that answer the question, one short paragraph each, "
                    "keeping their data references")
MAX_LEVELS = 4  # partial-reduce levels (each at least halves the points)
FRAGMENT_TOKENS = 24  # an analyst header ("----Analyst n----", its score) and the newlines
MAX_REFUSALS = 4  # final reduces refused as over the window before the step fails


class Point(Protocol):
    description: str
    score: float
    reports: list[int]

    def model_copy(self, *, update: dict[str, object] | None = None) -> Point: ...


P = TypeVar("P", bound=Point)


def _fragment(i: int, p: Point) -> str:
    return fragment("query/analyst", n=i + 1, score=f"{p.score:g}",
                    description=p.description) + "\n"


def analyst_context(points: list[P], budget: int, enc: str) -> tuple[str, list[P]]:
    """The best ``points`` (in the order given), as GraphRAG's analyst reports, until
    ``budget`` tokens are full; the context text and the points it holds."""
    parts: list[str] = []
    used: list[P] = []
    for i, p in enumerate(points):
        text = _fragment(i, p)
        if count("".join(parts) + text, enc) > budget:
            break
        parts.append(text)
        used.append(p)
    return "\n".join(parts), used


def reduce_completion(llm: LLM, question: str, response_type: str, wanted: int) -> int:
    """The reduce's completion cap for ``wanted`` tokens of points: LLM_MAX_TOKENS, lowered
    in a small window before the points are condensed (``map_batches.completion_reserve``)."""
    frame = render("query/reduce", context="", question=question, response_type=response_type)
    return completion_reserve(llm, llm.settings, frame, wanted)


def reduce_room(llm: LLM, question: str, response_type: str,
                completion: int | None = None) -> int | None:
    """The tokens the reduce context may take in the endpoint's known window (None when the
    window is unknown): ``map_batches.room_in_window`` for the reduce prompt and its
    ``completion`` (default LLM_MAX_TOKENS)."""
    frame = render("query/reduce", context="", question=question, response_type=response_type)
    room = room_in_window(llm, llm.settings, frame, completion)
    return None if room is None else max(MIN_MAP_TOKENS, room)


def _tokens(points: list[P], enc: str) -> int:
    return sum(count(_fragment(i, p), enc) + 1 for i, p in enumerate(points))


def _fitted(p: P, room: int, enc: str, trace: Trace) -> P:
    """``p`` alone within ``room`` tokens: cut, with a note, when over it."""
    n = count(_fragment(0, p), enc)
    if n <= room:
        return p
    keep = max(1, room - (n - count(p.description, enc)) - 8)
    trace.note(f"a reduce point ({n} tokens) cut to {keep} tokens to fit the endpoint's window "
               "(LLM_CTX, or the window the endpoint refused with)")
    return p.model_copy(update={"description": truncate(p.description, keep, enc)})


def _groups(points: list[P], room: int, enc: str) -> list[list[P]]:
    """``points`` in order, packed into groups whose analyst context fits ``room``."""
    out: list[list[P]] = []
    cur: list[P] = []
    used = 0
    for p in points:
        n = count(_fragment(len(cur), p), enc) + 1
        if cur and used + n > room:
            out.append(cur)
            cur, used = [], 0
        cur.append(p)
        used += n
    return [*out, cur] if cur else out


async def _partial(llm: LLM, question: str, group: list[P], cap: int, trace: Trace) -> P:
    """One partial reduce: ``group``'s points as one intermediate answer (its best score, the
    reports of all its points). A failed call keeps the group's best point, said."""
    context = "\n".join(_fragment(i, p) for i, p in enumerate(group))
    msgs = render("query/reduce", context=context, question=question,
                  response_type=PARTIAL_RESPONSE)
    try:
        text = str(await llm.complete(
            msgs, stage=Stage.REDUCE_PARTIAL, max_tokens=cap, prose=True, truncation_ok=True,
            subject=Subject(question, context),
            on_refusal=lambda fault: refused(trace, Stage.REDUCE_PARTIAL, fault)))
    except LLMError as err:
        trace.failures.append(Failure.of(f"{Stage.REDUCE_PARTIAL} of {len(group)} map points", err))
        trace.note(f"a partial reduce of {len(group)} map points failed ({err}): its best point "
                   "goes on alone")
        return group[0]
    text, changed = strip_chatter(text)
    trace.chatter_stripped += changed
    # within the cap whatever the endpoint did with it: two must fit beside each other
    text = truncate(text, cap, llm.settings.encoding)
    reports = list(dict.fromkeys(i for p in group for i in p.reports))
    return group[0].model_copy(update={"description": text, "reports": reports,
                                       "score": max(p.score for p in group)})


async def condense(llm: LLM, question: str, points: list[P], room: int,
                   trace: Trace, completion: int | None = None) -> list[P]:
    """``points`` reduced level by level until their analyst context fits ``room`` tokens
    (a hierarchical reduce); unchanged when they fit already. A partial reduce's reply is
    at most ``completion`` (the final reduce's cap, default LLM_MAX_TOKENS): its prompt is
    no longer than the final one's, so both fit the window alike."""
    enc = llm.settings.encoding
    # a partial answer (with its analyst header) must leave room for a second beside it at
    # the next level
    cap = max(32, min(completion or llm.settings.llm.max_tokens, room // 2 - FRAGMENT_TOKENS))
    level, calls, before = 0, 0, len(points)
    while _tokens(points, enc) > room:
        if level == MAX_LEVELS:
            _, kept = analyst_context(points, room, enc)
            trace.note(f"the reduce step's points still exceed the window after {level} levels "
                       f"of partial reduces: the best {len(kept)} of {len(points)} are used")
            return kept
        groups = _groups([_fitted(p, room, enc, trace) for p in points], room, enc)
        if all(len(g) == 1 for g in groups):  # no two fit together: nothing to reduce
            _, kept = analyst_context(points, room, enc)
            trace.note(f"the reduce step's points do not fit the window two at a time: the "
                       f"best {len(kept)} of {len(points)} are used")
            return kept
        level += 1
        points = list(await asyncio.gather(*(
            _partial(llm, question, g, cap, trace) if len(g) > 1 else asyncio.sleep(0, g[0])
            for g in groups)))
        calls += sum(len(g) > 1 for g in groups)
        events.emit("reduce", level=level, points=len(points))
    if level:
        trace.note(f"hierarchical reduce: {before} map points over the endpoint's window "
                   f"({room} tokens for them) condensed in {level} level(s) by {calls} "
                   f"{Stage.REDUCE_PARTIAL} call(s) to {len(points)} intermediate answers")
    return points


async def reduce_fitting(llm: LLM, question: str, response_type: str, kept: list[P],
                         trace: Trace, subject: Callable[[list[P]], Subject]
                         ) -> tuple[str, list[P]]:
    """The final reduce over the map's ``kept`` points (best first): those that fit
    REDUCE_CONTEXT_TOKENS, condensed to the endpoint's window when it is known and they
    exceed it (``condense``), and again with the window a context-length refusal names.
    Returns the answer text ("" with the failure noted, as ``common.complete_or_note``) and
    the points chosen (the map points it rests on); ``subject(points)`` is the degenerate
    check's context."""
    settings = llm.settings
    _, chosen = analyst_context(kept, settings.query.reduce_context_tokens, settings.encoding)
    trace.points_in_reduce = len(chosen)
    events.emit("reduce", points=len(chosen))
    last = None
    wanted = _tokens(chosen, settings.encoding)
    for _ in range(MAX_REFUSALS):
        # a small window: the completion's share lowered before the points are condensed
        completion = reduce_completion(llm, question, response_type, wanted)
        room = reduce_room(llm, question, response_type, completion)
        points = chosen if room is None else await condense(llm, question, chosen, room, trace,
                                                            completion)
        context = "\n".join(_fragment(i, p) for i, p in enumerate(points))
        msgs = render("query/reduce", context=context, question=question,
                      response_type=response_type)
        try:
            return await complete_or_note(llm, msgs, Stage.REDUCE, trace, subject=subject(chosen),
                                          reraise=(CONTEXT_LENGTH,), max_tokens=completion), chosen
        except LLMError as err:
            if err.reason != CONTEXT_LENGTH:
                raise  # complete_or_note's own (a content filter): not ours to handle
            sent = count("\n".join(m["content"] for m in msgs), settings.encoding)
            learn_window(llm, sent + completion, err)
            last = err
            if room is not None and reduce_room(llm, question, response_type, reduce_completion(
                    llm, question, response_type, wanted)) == room:
                # refused within the window it names: our tokenizer undercounts the model's
                llm.caps.set(WINDOW_KEY, int(known_window(llm, settings) * 0.85))
            trace.note(f"the reduce step was refused as over the endpoint's window: condensed "
                       f"to the window learnt ({llm.caps.get(WINDOW_KEY)} tokens)")
    trace.failures.append(Failure.of("reduce", last))
    trace.note(f"reduce failed: {last}")
    return "", chosen
