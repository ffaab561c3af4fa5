"""LLM calls, tokens and faults per pipeline stage: what a run spent and what went wrong."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class StageUsage:
    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class Usage:
    """LLM calls and tokens per pipeline stage (extract, glean, summarize, report, map ...)."""

    stages: dict[str, StageUsage] = field(default_factory=dict)
    # faults met, by reason: transport (http429, http5xx, timeout, connection), unusable
    # replies (llm.reply reasons) and repaired defects (think, fence, prose, nousage ...)
    faults: Counter[str] = field(default_factory=Counter)

    def fault(self, reason: str) -> None:
        self.faults[reason] += 1

    def stage(self, name: str) -> StageUsage:
        return self.stages.setdefault(name, StageUsage())

    @property
    def total(self) -> StageUsage:
        t = StageUsage()
        for s in self.stages.values():
            for k in vars(t):
                setattr(t, k, getattr(t, k) + getattr(s, k))
        return t

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {k: dict(vars(v)) for k, v in sorted(self.stages.items())}
