"""The evaluation method of Edge et al. 2024 (§3.3) and ReTAG (§4): global questions, answers
from each method, and an LLM judge comparing every pair of answers head to head on
comprehensiveness, diversity, empowerment and directness; each pair is judged in both orders
(to cancel position bias) and reported as the win rate of the first method."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from ..config import Settings
from ..db import Graph
from ..errors import InputError, LLMError
from ..llm import LLM, Usage
from ..model import Answer, Query
from ..prompts import entries, render
from . import METHODS, answer
from .retrieval import query_level

log = logging.getLogger(__name__)


def criteria(settings: Settings) -> dict[str, str]:
    """The judge's criteria and their definitions (``prompts/query/eval_criteria.txt``)."""
    return entries(settings.prompts_dir, "query/eval_criteria")


class Verdict(BaseModel):
    reasoning: str = ""
    winner: Literal[0, 1, 2] = 0

    @field_validator("winner", mode="before")
    @classmethod
    def _winner(cls, v: Any) -> int:
        try:
            return int(v) if int(v) in (0, 1, 2) else 0
        except (TypeError, ValueError):
            return 0


class Questions(BaseModel):
    questions: list[str] = []


async def generate_questions(llm: LLM, settings: Settings, corpus_description: str,
                             n: int) -> list[str]:
    """``n`` global sensemaking questions from the corpus description (Edge et al. §3.3's
    persona/task generation, in one step). Raises LLMError when the model gives none."""
    msgs = render(settings.prompts_dir, "query/eval_questions", n=n,
                  corpus_description=corpus_description or "(no description)")
    qs = (await llm.structured(msgs, Questions, stage="eval_questions")).questions
    qs = [q.strip() for q in qs if q.strip()][:n]
    if not qs:
        raise LLMError("the LLM generated no evaluation questions")
    return qs


async def judge(llm: LLM, settings: Settings, question: str, criterion: str, a: str,
                b: str) -> float:
    """Score of ``a`` against ``b`` on one criterion, judged in both orders: 1 win, 0.5 tie
    (or disagreement between the orders, or an unparseable verdict), 0 loss."""
    scores = []
    for first, second, a_is in ((a, b, 1), (b, a, 2)):
        msgs = render(settings.prompts_dir, "query/eval_judge", criterion=criterion,
                      definition=criteria(settings)[criterion], question=question, answer1=first,
                      answer2=second)
        try:
            v = await llm.structured(msgs, Verdict, stage="eval_judge", max_tokens=300)
            scores.append(0.5 if v.winner == 0 else float(v.winner == a_is))
        except LLMError as err:
            log.warning("judge verdict failed (%s): counted as a tie", err)
            scores.append(0.5)
    return sum(scores) / 2


async def evaluate(llm: LLM, settings: Settings, questions: list[str],
                   answer: Callable[[str, str], Awaitable[Answer]],
                   methods: list[str]) -> dict[str, Any]:
    """Answers by every method, then head-to-head win rates per pair and criterion.

    ``answer(method, question)`` produces an Answer. Returns ``{"win_rates": [{"a", "b",
    "criterion", "win_rate"}], "answers": [...]}``; win_rate is a's mean score over questions.
    """
    answers: dict[tuple[str, str], str] = {}
    records = []
    for q in questions:
        for m in methods:
            ans = await answer(m, q)
            answers[(m, q)] = ans.answer
            records.append({"question": q, "method": m, "answer": ans.answer,
                            "llm_prompt_tokens": ans.trace.llm.get("prompt_tokens")})
    rates = []
    for a, b in itertools.combinations(methods, 2):
        for criterion in criteria(settings):
            scores = [await judge(llm, settings, q, criterion, answers[(a, q)], answers[(b, q)])
                      for q in questions]
            rates.append({"a": a, "b": b, "criterion": criterion,
                          "win_rate": round(sum(scores) / len(scores), 3)})
    return {"questions": questions, "win_rates": rates, "answers": records}


async def run_eval(graph: Graph, llm: LLM, settings: Settings, methods: list[str], *,
                   questions: list[str] | None = None, generate: int | None = None,
                   level: int | None = None) -> dict[str, Any]:
    """`neo4j-retag eval`: ``questions`` (or ``generate`` of them from the corpus description),
    answered by every method at ``level`` (default QUERY_LEVEL, clamped), judged head to head.

    Each answer's own LLM usage is in its record. Returns :func:`evaluate`'s dict plus
    ``level``. Raises InputError for fewer than two methods, an unknown one, or no questions.
    """
    if len(methods) < 2 or any(m not in METHODS for m in methods):
        raise InputError(f"--methods: two or more of {', '.join(METHODS)}")
    lvl = query_level(graph, settings, level)
    if questions is None:
        corpus = graph.run("query/corpus")[0]["description"] or ""
        questions = await generate_questions(llm, settings, corpus, generate or 5)
    if not questions:
        raise InputError("no evaluation questions given")

    async def one(method: str, q: str) -> Answer:
        inner = Usage()
        async with LLM(settings, inner) as sub_llm:  # per-answer accounting
            a = await answer(method, graph, sub_llm, settings, Query(question=q, level=lvl))
        a.trace.llm = vars(inner.total)
        return a

    result = await evaluate(llm, settings, questions, one, methods)
    result["level"] = lvl
    return result
