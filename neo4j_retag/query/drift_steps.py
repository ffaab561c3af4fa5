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
from typing import Annotated, Any

from pydantic import BaseModel, create_model, field_validator

from ..checks.degenerate import degenerate
from ..config import Settings
from ..db import Graph
from ..errors import Failure, LLMError
from ..llm import LLM, Subject
from ..llm.answer_faults import injected
from ..model import Citation, DriftStep, ReportRow, Trace
from ..prompts import csv_table, fragment, render
from ..stages import Stage
from ..text import strip_chatter
from ..tokens import count, truncate
from .citations import cited_sources
from .common import note_once
from .local_context import WITHHELD_NOTE, LocalContext, SourceIds, build_context, seed
from .ratings import rated

# DRIFT's local searches give text units most of the context (GraphRAG's drift defaults)
TEXT_UNIT_PROP, COMMUNITY_PROP = 0.9, 0.1


class Reply(BaseModel):
    """A primer fold's or a follow-up's reply: a 0-100 score and follow-up questions; the
    answer's field is added by :func:`reply_model` under the name its prompt uses."""

    score: Annotated[float, rated(0, 100)] = 0
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


TEMPLATE_TOKENS = 300  # of the report whose shape the hypothetical answer copies


async def hypothetical_answer(llm: LLM, settings: Settings, question: str, template: str,
                              trace: Trace) -> str:
    """HyDE: an answer the model imagines in the shape of ``template`` (a report: the
    highest-ranked at the level, where GraphRAG draws one at random), to be embedded; "" with
    a note when the call fails."""
    template = truncate(template, TEMPLATE_TOKENS, settings.encoding)
    msgs = render("query/drift_hyde", template=template, question=question)
    try:
        text = str(await llm.complete(msgs, stage=Stage.DRIFT_HYDE, prose=True, max_tokens=300))
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
                      n: int, trace: Trace, k: int) -> DriftStep:
    """One primer call over a fold of the top reports: an intermediate answer citing them,
    its score and up to ``k`` follow-up questions. A failure fails this fold only
    (``trace.failures``)."""
    step = DriftStep(query=question, depth=0)
    table = _fold_table(reports, settings.query.map_context_tokens, settings.encoding)
    msgs = render("query/drift_primer", reports=table, question=question, followups=k)
    try:
        reply = await llm.structured(msgs, reply_model("intermediate_answer"),
                                     stage=Stage.DRIFT_PRIMER,
                                     accept=prose_answer("intermediate_answer", msgs))
    except LLMError as err:
        return _failed(step, f"drift primer fold {n}", err, trace)
    valid = {f"Reports:{r.id}": Citation(kind="report", id=r.id, title=r.title, level=r.level)
             for r in reports}
    return _answered(step, reply, reply.model_dump()["intermediate_answer"], valid, k, trace)


async def follow_up(graph: Graph, llm: LLM, settings: Settings, global_query: str,
                    step: DriftStep, level: int, ids: SourceIds, vector: list[float] | None,
                    trace: Trace, n: int, k: int, *, embed: bool = True) -> DriftStep:
    """``step``'s question answered by local search (its own seeding and context, DRIFT's
    shares of the budget), with a score against the overall question and up to ``k`` more
    follow-ups;
    ``vector`` is the question's embedding (``embed``: else embed it here). Nothing seeded
    is an answer of nothing (score 0); a failed call fails this item only."""
    seeding = await seed(graph, llm, settings, step.query, trace, vector, embed=embed)
    step.seeded_by = seeding.by if seeding else None
    if seeding is None:
        note_once(trace, "a follow-up question matched no entity: it adds nothing")
        step.score = 0
        return step
    ctx: LocalContext = build_context(graph, settings, step.query, seeding, level,
                                      settings.query.reduce_context_tokens,
                                      text_unit_prop=TEXT_UNIT_PROP,
                                      community_prop=COMMUNITY_PROP, ids=ids)
    if ctx.withheld:
        note_once(trace, WITHHELD_NOTE.format(n=ctx.withheld))
    msgs = render("query/drift_local", context=ctx.text, question=step.query,
                  global_query=global_query, followups=k)
    try:
        reply = await llm.structured(msgs, reply_model("response"), stage=Stage.DRIFT_LOCAL,
                                     accept=prose_answer("response", msgs))
    except LLMError as err:
        return _failed(step, f"drift follow-up {n}", err, trace)
    return _answered(step, reply, reply.model_dump()["response"], ctx.valid, k, trace)


def prose_answer(field: str, msgs: list[dict[str, str]]) -> Callable[[Reply], str | None]:
    """Why a reply's answer ``field`` is no answer, or None: what a document's instructions
    made of it (``injected``: JSON, the prompt echoed, a record or markup, a fact only an
    instruction of its data gives), or repeating itself. Such a reply is asked
    again, then the step fails - never scored (a JSON object was once scored 100). Grounding
    is the reduce step's check: "the data does not say" is a fair intermediate answer (score
    0)."""
    def accept(reply: Reply) -> str | None:
        text = str(reply.model_dump()[field])
        why = injected(text, msgs[0]["content"], Subject("", msgs[-1]["content"]))
        return why.why if why else degenerate(strip_chatter(text)[0])
    return accept


def _failed(step: DriftStep, item: str, err: LLMError, trace: Trace) -> DriftStep:
    trace.note(f"{item} failed ({err.reason}): the search goes on without it")
    trace.failures.append(Failure.of(item, err))
    step.failed = True
    return step


def _answered(step: DriftStep, reply: Reply, answer: str, valid: dict[str, Citation], k: int,
              trace: Trace) -> DriftStep:
    text, changed = strip_chatter(answer)
    trace.chatter_stripped += changed
    step.answer, step.cited = cited_sources(text, valid, trace)
    step.score = reply.score
    step.follow_ups = list(dict.fromkeys(reply.follow_up_queries))[:k]
    return step


def reduce_context(settings: Settings, steps: list[DriftStep]) -> tuple[str, list[DriftStep]]:
    """The intermediate answers, best score first (ties: the earlier), while they fit the
    reduce budget: the context and the steps in it."""
    ranked = sorted((a for a in steps if a.answer.strip()), key=lambda a: -(a.score or 0))
    parts: list[str] = []
    used: list[DriftStep] = []
    for a in ranked:
        text = fragment("query/drift_answer", n=len(used) + 1, score=f"{a.score or 0:g}",
                        query=a.query, answer=a.answer) + "\n"
        if count("".join(parts) + text, settings.encoding) > settings.query.reduce_context_tokens:
            break
        parts.append(text)
        used.append(a)
    return "\n".join(parts), used
