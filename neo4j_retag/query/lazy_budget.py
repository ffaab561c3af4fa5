"""How many relevance tests the lazy method spends, and when it stops before its budget.

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

from ..config import Settings


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
        q = settings.query
        return cls(tests or q.lazy_budget, q.lazy_seconds, q.lazy_enough)

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
