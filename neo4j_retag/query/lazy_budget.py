"""How many relevance tests the lazy method spends, and when it stops before its budget; the
lazy method's settings and its ``--budget`` option (query/lazy.py declares them).

- at most ``tests`` (``--budget``, LAZY_BUDGET), every call counted, a failed one too;
- no new batch once ``seconds`` have passed since the first test (LAZY_SECONDS; the first
  batch always runs): a budget in time, so the tests a question gets follow the model's speed
  - a fast endpoint spends the whole count, the embedded model on two cores what fits (its
  prompt tokens are the cost);
- none once ``enough`` text units were found relevant (LAZY_ENOUGH): the answer is made of
  their claims, and every further relevant text unit is one more claim call; the text units
  are tested best-ranked first, so the first ones found are the best matches.

0 turns either limit off. Why the tests ended before the budget is ``stopped`` ("seconds",
"enough"; "" when the budget or the text units ran out), said in the trace.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..config import Group, Settings, env
from ..model import Options, option


class LazySettings(Group):
    """LazyGraphRAG (`--method lazy`)."""

    budget: int = env("LAZY_BUDGET", 100, "relevance tests of `ask --method lazy` without "
                      "`--budget`", ge=1)
    # the local values: the tests sized to the embedded model's speed (~75 prompt tokens/s on
    # two cores: a test's prompt is its cost): short excerpts, a time budget, an early stop
    seconds: float = env(
        "LAZY_SECONDS", 0.0, "no new relevance test after this many seconds of testing (the "
        "first batch always runs): the tests follow the model's speed; 0 = no limit", ge=0,
        local=90)
    enough: int = env(
        "LAZY_ENOUGH", 0, "the tests stop once this many text units are relevant, and the "
        "claims of the best-ranked this many are read (0 = no early stop)", ge=0, local=6)
    test_tokens: int = env(
        "LAZY_TEST_TOKENS", 0, "a relevance test reads the text unit's sentences that best match "
        "the question, up to this many tokens (0 = the whole text unit, up to "
        "`MAP_CONTEXT_TOKENS`) ([Lazy mode](lazy.md#the-query))", ge=0, local=300)


class LazyOptions(Options):
    budget: int | None = option("relevance tests (default LAZY_BUDGET)", ge=1, le=10_000)


@dataclass
class Budget:
    tests: int
    seconds: float = 0.0
    enough: int = 0
    clock: Callable[[], float] = time.monotonic
    started: float | None = field(default=None, init=False)
    stopped: str = field(default="", init=False)

    @classmethod
    def of(cls, settings: Settings, tests: int | None = None) -> Budget:
        """The budget of one question: ``tests`` (``--budget``) or LAZY_BUDGET, with
        LAZY_SECONDS and LAZY_ENOUGH."""
        own = settings.method(LazySettings)
        return cls(tests or own.budget, own.seconds, own.enough)

    def left(self, spent: int, relevant: int) -> int:
        """Tests that may still start, with ``spent`` tests made and ``relevant`` text units
        found; 0 once a limit is reached (kept in ``stopped``)."""
        now = self.clock()
        if self.started is None:
            self.started = now
        if self.enough and relevant >= self.enough:
            self.stopped = self.stopped or "enough"
            return 0
        if self.seconds and spent and now - self.started >= self.seconds:
            self.stopped = self.stopped or "seconds"
            return 0
        return max(0, self.tests - spent)
