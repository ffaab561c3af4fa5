"""LLM calls, tokens and faults per pipeline stage: what a run spent and what went wrong."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..model import LLMCost


@dataclass
class Usage:
    """The LLM cost per pipeline stage (extract, glean, summarize, report, map ...): one
    `model.LLMCost` each, counted by the client as calls go."""

    stages: dict[str, LLMCost] = field(default_factory=dict)
    # faults met, by reason: transport (http429, http5xx, timeout, connection), unusable
    # replies (llm.reply reasons) and repaired defects (think, fence, prose, nousage ...)
    faults: Counter[str] = field(default_factory=Counter)

    def fault(self, reason: str) -> None:
        self.faults[reason] += 1

    def stage(self, name: str) -> LLMCost:
        return self.stages.setdefault(name, LLMCost())

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
