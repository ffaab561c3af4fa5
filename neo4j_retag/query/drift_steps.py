"""The steps of DRIFT search (``query/drift.py`` runs them; microsoft/graphrag
``query/structured_search/drift_search``): the hypothetical answer (HyDE) whose embedding
finds the primer's reports, a primer fold, a follow-up question answered by local search, and
the reduce's context of intermediate answers ranked by score.

Each answer's citation markers are checked against what its own context held (a primer fold:
its reports; a follow-up: its local context) before it goes on, so the reduce sees only ids
that exist; text unit ids are numbered once per question (`local_context.SourceIds`).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, create_model, field_validator

from ..config import Settings
from ..db import Graph
from ..errors import Failure, LLMError
from ..llm import LLM
from ..llm.degenerate import degenerate
from ..llm.reply import not_prose
from ..model import Citation, ReportRow, Trace, clamped
from ..prompts import csv_table, fragment, render
from ..text import strip_chatter
from ..tokens import count, truncate
from .citations import cited_sources
from .common import note_once
from .local_context import LocalContext, SourceIds, build_context, seed

# DRIFT's local searches give text units most of the context (GraphRAG's drift defaults)
TEXT_UNIT_PROP, COMMUNITY_PROP = 0.9, 0.1


class Reply(BaseModel):
    """A primer fold's or a follow-up's reply: a 0-100 score and follow-up questions; the
    answer's field is added by :func:`reply_model` under the name its prompt uses."""

    score: Annotated[float, clamped(0, 100, 0.0)] = 0
    follow_up_queries: list[str] = []

    @field_validator("follow_up_queries", mode="before")
    @classmethod
    def _queries(cls, v: Any) -> list[str]:
        if isinstance(v, str):
            v = re.split(r"\n+|(?<=\?)\s+", v)
        return [str(q).strip(" -*\t") for q in (v or []) if str(q).strip(" -*\t")]


@functools.lru_cache(maxsize=8)
def reply_model(answer_field: str) -> type[Reply]:
    """The reply's schema with the answer under the name its prompt uses
    (``intermediate_answer`` for the primer, ``response`` for a follow-up). No length or
    count bounds of its own: the client's (LLM_SCHEMA_MAX_ITEMS / _CHARS, for the local
    model's grammar) apply as to every structured call - a 2,000-character bound made
    llama.cpp's grammar compiler give up ("number of rules ... exceeds sane defaults") and
    the server fall over. The follow-ups are cut to DRIFT_K_FOLLOWUPS afterwards."""
    fields: dict[str, Any] = {answer_field: (str, "")}
    return create_model(  # type: ignore[call-overload,no-any-return]
        "DriftReply", __base__=Reply, **fields)


@dataclass
class Action:
    """A question DRIFT asks: a primer fold (depth 0) or a follow-up; ``priority`` ranks an
    unanswered one (the score of the answer that asked it), ``cited`` what its answer cites."""

    query: str
    depth: int = 0
    parent: int | None = None
    priority: float = 0
    answer: str = ""
    score: float | None = None
    follow_ups: list[str] = field(default_factory=list)
    cited: list[Citation] = field(default_factory=list)
    failed: bool = False
    seeded_by: str | None = None
    in_reduce: bool = False


TEMPLATE_TOKENS = 300  # of the report whose shape the hypothetical answer copies


async def hypothetical_answer(llm: LLM, settings: Settings, question: str, template: str,
                              trace: Trace) -> str:
    """HyDE: an answer the model imagines in the shape of ``template`` (a report: the
    highest-ranked at the level, where GraphRAG draws one at random), to be embedded; "" with
    a note when the call fails."""
    template = truncate(template, TEMPLATE_TOKENS, settings.encoding)
    msgs = render("query/drift_hyde", template=template, question=question)
    try:
        text = str(await llm.complete(msgs, stage="drift_hyde", prose=True, max_tokens=300))
    except LLMError as err:
        trace.note(f"the hypothetical answer failed ({err}): the question's own embedding "
                   "finds the primer's reports", logging.WARNING)
        trace.failures.append(Failure.of("drift hypothetical answer", err))
        return ""
    return strip_chatter(text)[0]


def folds(reports: list[ReportRow], n: int) -> list[list[ReportRow]]:
    """``reports`` split into at most ``n`` folds of near-equal size, best first in each
    (GraphRAG's ``np.array_split``)."""
    n = max(1, min(n, len(reports)))
    size, extra = divmod(len(reports), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        out.append(reports[start:end])
        start = end
    return [f for f in out if f]


def _fold_table(reports: list[ReportRow], budget: int, enc: str) -> str:
    """The fold's reports as a table within ``budget`` tokens (each cut to its share)."""
    share = max(50, budget // max(1, len(reports)) - 10)
    return csv_table("Reports", ["id", "title", "content"],
                     [[r.id, r.title, truncate(r.full_content, share, enc)] for r in reports])


async def primer_fold(llm: LLM, settings: Settings, question: str, reports: list[ReportRow],
                      n: int, trace: Trace) -> Action:
    """One primer call over a fold of the top reports: an intermediate answer citing them,
    its score and follow-up questions. A failure fails this fold only (``trace.failures``)."""
    action = Action(query=question, depth=0)
    k = settings.query.drift_k_followups
    table = _fold_table(reports, settings.query.map_context_tokens, settings.encoding)
    msgs = render("query/drift_primer", reports=table, question=question, followups=k)
    try:
        reply = await llm.structured(msgs, reply_model("intermediate_answer"),
                                     stage="drift_primer",
                                     accept=prose_answer("intermediate_answer", msgs))
    except LLMError as err:
        return _failed(action, f"drift primer fold {n}", err, trace)
    valid = {f"Reports:{r.id}": Citation(kind="report", id=r.id, title=r.title, level=r.level)
             for r in reports}
    return _answered(action, reply, reply.model_dump()["intermediate_answer"], valid, k, trace)


async def follow_up(graph: Graph, llm: LLM, settings: Settings, global_query: str,
                    action: Action, level: int, ids: SourceIds, vector: list[float] | None,
                    trace: Trace, n: int, *, embed: bool = True) -> Action:
    """``action``'s question answered by local search (its own seeding and context, DRIFT's
    shares of the budget), with a score against the overall question and more follow-ups;
    ``vector`` is the question's embedding (``embed``: else embed it here). Nothing seeded
    is an answer of nothing (score 0); a failed call fails this item only."""
    q = settings.query
    seeding = await seed(graph, llm, settings, action.query, trace, vector, embed=embed)
    action.seeded_by = seeding.by if seeding else None
    if seeding is None:
        note_once(trace, "a follow-up question matched no entity: it adds nothing")
        action.score = 0
        return action
    ctx: LocalContext = build_context(graph, settings, action.query, seeding, level,
                                      q.reduce_context_tokens, text_unit_prop=TEXT_UNIT_PROP,
                                      community_prop=COMMUNITY_PROP, ids=ids)
    k = q.drift_k_followups
    msgs = render("query/drift_local", context=ctx.text, question=action.query,
                  global_query=global_query, followups=k)
    try:
        reply = await llm.structured(msgs, reply_model("response"), stage="drift_local",
                                     accept=prose_answer("response", msgs))
    except LLMError as err:
        return _failed(action, f"drift follow-up {n}", err, trace)
    return _answered(action, reply, reply.model_dump()["response"], ctx.valid, k, trace)


def prose_answer(field: str, msgs: list[dict[str, str]]) -> Callable[[Reply], str | None]:
    """Why a reply's answer ``field`` is no answer, or None: JSON or the prompt echoed
    (``not_prose``: a document's template), or repeating itself. Such a reply is asked again,
    then the step fails - never scored (a JSON object was once scored 100). Grounding is the
    reduce step's check: "the data does not say" is a fair intermediate answer (score 0)."""
    def accept(reply: Reply) -> str | None:
        text = str(reply.model_dump()[field])
        return not_prose(text, msgs[0]["content"]) or degenerate(strip_chatter(text)[0])
    return accept


def _failed(action: Action, item: str, err: LLMError, trace: Trace) -> Action:
    trace.note(f"{item} failed ({err.reason}): the search goes on without it")
    trace.failures.append(Failure.of(item, err))
    action.failed = True
    return action


def _answered(action: Action, reply: Reply, answer: str, valid: dict[str, Citation], k: int,
              trace: Trace) -> Action:
    text, changed = strip_chatter(answer)
    trace.chatter_stripped += changed
    action.answer, action.cited = cited_sources(text, valid, trace)
    action.score = reply.score
    action.follow_ups = list(dict.fromkeys(reply.follow_up_queries))[:k]
    return action


def reduce_context(settings: Settings, actions: list[Action]) -> tuple[str, list[Action]]:
    """The intermediate answers, best score first (ties: the earlier), while they fit the
    reduce budget: the context and the actions in it."""
    ranked = sorted((a for a in actions if a.answer.strip()), key=lambda a: -(a.score or 0))
    parts: list[str] = []
    used: list[Action] = []
    for a in ranked:
        text = fragment("query/drift_answer", n=len(used) + 1, score=f"{a.score or 0:g}",
                        query=a.query, answer=a.answer) + "\n"
        if count("".join(parts) + text, settings.encoding) > settings.query.reduce_context_tokens:
            break
        parts.append(text)
        used.append(a)
    return "\n".join(parts), used
