"""LLM calls, tokens and faults per pipeline stage: what a run spent and what went wrong.

Whose account a call counts in: the client's own, unless the code making it runs inside
:func:`counting` - then that context's account. A context variable carries it (as
``events`` carries listeners), so one client serves many questions at once (serve's, eval's
answers) and each counts only its own calls, without copying the client."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from .. import tokens
from ..model import LLMCost
from ..stages import stage_of
from .endpoint import budget_setting

# an endpoint that counts under this share of the prompt tokens we sent cut the prompt: our
# tokenizer is not the model's (a chat template adds tokens; other vocabularies count 0.7-1.5x
# ours), so only a gap no tokenizer explains is called a truncation
TRUNCATION_SHARE = 0.6


@dataclass
class Usage:
    """The LLM cost per pipeline stage (extract, glean, summarize, report, map ...): one
    `model.LLMCost` each, counted by the client as calls go."""

    stages: dict[str, LLMCost] = field(default_factory=dict)
    # faults met, by reason: transport (http429, http5xx, timeout, connection), unusable
    # replies (llm.reply reasons) and repaired defects (think, fence, prose, nousage ...)
    faults: Counter[str] = field(default_factory=Counter)
    # prompts the endpoint cut without saying so, one line each (query.answer notes them)
    truncated: list[str] = field(default_factory=list)

    def fault(self, reason: str) -> None:
        self.faults[reason] += 1

    def check_prompt(self, stage: str, prompt: str, counted: int, enc: str) -> str | None:
        """The line (also kept in ``truncated``, counted as fault ``prompt_truncated``) when
        the endpoint's usage counts ``counted`` prompt tokens for a ``prompt`` that is far
        longer by our tokenizer ``enc``: the endpoint cut it silently (a server with a
        smaller window than the budgets assume). None when the counts agree."""
        sent = tokens.count(prompt, enc)
        if counted >= sent * TRUNCATION_SHARE or sent - counted < 64:
            return None
        line = (f"{stage}: the endpoint counted {counted:,} prompt tokens of the ~{sent:,} "
                "sent: it cut the prompt without saying so (its window is smaller than the "
                f"budgets assume): lower {budget_setting(stage)}, or serve a larger window "
                "(LLM_CTX)")
        self.fault("prompt_truncated")
        self.truncated.append(line)
        return line

    def stage(self, stage: str) -> LLMCost:
        """The cost of ``stage`` (a ``Stage``; kept under its plain name), counted from here.
        Raises ValueError for a name that is no stage: every call counts here before it is
        sent, so a misnamed stage fails its first call, not a reply later."""
        return self.stages.setdefault(str(stage_of(stage)), LLMCost())

    @property
    def total(self) -> LLMCost:
        """Every stage together (a new value: later calls do not change it)."""
        return sum(self.stages.values(), LLMCost())

    def by_stage(self) -> dict[str, LLMCost]:
        """A copy of the cost per stage, by stage name (what a trace or a record keeps)."""
        return {k: v.model_copy() for k, v in sorted(self.stages.items())}

    def as_dict(self) -> dict[str, dict[str, float]]:
        """The cost per stage as JSON: ``{stage: LLMCost fields}``, stages sorted."""
        return {k: v.model_dump() for k, v in self.by_stage().items()}


_scoped: ContextVar[Usage | None] = ContextVar("neo4j_retag_usage", default=None)


@contextmanager
def counting(usage: Usage | None = None) -> Iterator[Usage]:
    """Count the LLM calls (and embeddings) of the code run inside, and of the tasks and
    threads it starts, in ``usage`` (a new account by default), which is yielded. They count
    there only: not in the client's own account, nor in an enclosing ``counting``'s."""
    account = usage if usage is not None else Usage()
    token = _scoped.set(account)
    try:
        yield account
    finally:
        _scoped.reset(token)


class Accounted:
    """A client's ``usage``: the account of the context it is called in (:func:`counting`),
    else its own (``own_usage``). Assigning ``usage`` sets its own account."""

    own_usage: Usage

    @property
    def usage(self) -> Usage:
        scoped = _scoped.get()
        return scoped if scoped is not None else self.own_usage

    @usage.setter
    def usage(self, value: Usage) -> None:
        self.own_usage = value
