"""The LLM judge of Edge et al. 2024 (§3.3) and ReTAG (§4): two answers to the same question
compared head to head on one criterion (comprehensiveness, diversity, empowerment,
directness), in both orders to cancel position bias."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from ..config import Settings
from ..errors import Failure, LLMError
from ..llm import LLM
from ..prompts import entries, render
from ..stages import Stage

log = logging.getLogger(__name__)


def criteria(settings: Settings) -> dict[str, str]:
    """The judge's criteria and their definitions (``prompts/eval/criteria.txt``)."""
    return entries("eval/criteria")


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


async def judge(llm: LLM, settings: Settings, question: str, criterion: str, a: str,
                b: str, failures: list[Failure] | None = None) -> float:
    """Score of ``a`` against ``b`` on one criterion, judged in both orders: 1 win, 0.5 tie
    (or disagreement between the orders, or a failed verdict), 0 loss; so one of 0, 0.25, 0.5,
    0.75, 1. A failed verdict counts as a tie, is logged, and is appended to ``failures``."""
    async def order(first: str, second: str, a_is: int) -> float:
        msgs = render("eval/judge", criterion=criterion,
                      definition=criteria(settings)[criterion], question=question, answer1=first,
                      answer2=second)
        try:
            v = await llm.structured(msgs, Verdict, stage=Stage.EVAL_JUDGE, max_tokens=300)
            return 0.5 if v.winner == 0 else float(v.winner == a_is)
        except LLMError as err:
            log.warning("judge verdict failed (%s): counted as a tie", err)
            if failures is not None:
                failures.append(Failure.of(
                    f"verdict on {criterion} for {question!r} (counted as a tie)", err))
            return 0.5

    scores = await asyncio.gather(order(a, b, 1), order(b, a, 2))
    return sum(scores) / 2
