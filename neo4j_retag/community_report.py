"""The community report, in its one shape for the index (built bottom-up, ``index/reports``)
and the query side (built on demand on a lazy index, ``query/lazy_reports``): the JSON a
report prompt returns (GraphRAG's community report), its markdown ``full_content``, the graph
properties it is stored as, and the counts of a run that builds reports.

Plain data and string work, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, Field, computed_field, field_validator

from .citations import check, table_ids
from .errors import Failure
from .model import clamped
from .text import strip_chatter


def report_markdown(title: str, summary: str, rating: float | None, explanation: str,
                    findings: list[dict[str, str]]) -> str:
    """A community report's ``full_content``: GraphRAG's markdown layout (title, summary,
    rating line when rated, one section per finding)."""
    parts = [f"# {title}", summary]
    if rating is not None:
        parts.append(f"Rating: {rating:g} - {explanation}".rstrip(" -"))
    for f in findings:
        parts += [f"## {f['summary']}", f["explanation"]]
    return "\n\n".join(p for p in parts if p and p.strip())


class Finding(BaseModel):
    summary: str = ""
    explanation: str = ""


class CommunityReport(BaseModel):
    """The JSON a report prompt returns (GraphRAG's community report shape)."""

    title: str
    summary: str = ""
    rating: Annotated[float, clamped(0, 10, 0.0)] = 0.0
    rating_explanation: str = ""
    findings: list[Finding] = []

    @field_validator("findings", mode="before")
    @classmethod
    def _findings(cls, v: Any) -> Any:
        if not isinstance(v, list):
            return []
        return [{"summary": f} if isinstance(f, str) else f for f in v]

    def without_chatter(self) -> tuple[CommunityReport, bool]:
        """The report with the model's lead-ins and wrappers stripped from every text field
        ("Summary: ...", quotes, fences); and whether any field changed."""
        changed = False

        def clean(value: str) -> str:
            nonlocal changed
            text, ch = strip_chatter(value)
            changed |= ch
            return text

        findings = [Finding(summary=clean(f.summary), explanation=clean(f.explanation))
                    for f in self.findings]
        report = self.model_copy(update={
            "title": clean(self.title), "summary": clean(self.summary),
            "rating_explanation": clean(self.rating_explanation), "findings": findings})
        return report, changed

    def checked_citations(self, context: str) -> tuple[CommunityReport, list[str]]:
        """The report with every ``[Data: ...]`` marker of its text fields held to the ids of
        ``context`` (its Entities, Relationships, Claims and sub-community Reports tables);
        returns it and the invalid ids removed (``"Entities 42"``)."""
        valid = table_ids(context)
        invalid: list[str] = []

        def fix(value: str) -> str:
            checked = check(value, valid)
            invalid.extend(checked.invalid)
            return checked.text

        update = {"summary": fix(self.summary),
                  "rating_explanation": fix(self.rating_explanation)}
        update["findings"] = [Finding(summary=fix(f.summary), explanation=fix(f.explanation))
                              for f in self.findings]
        return self.model_copy(update=update), invalid

    def grounded(self, check: Callable[[str, str], str | None]) -> tuple[CommunityReport,
                                                                         list[str]]:
        """The report without the findings ``check`` (``llm.grounding.FindingCheck`` of its
        context) finds unsupported; returns it and one line per finding dropped (its summary
        and why)."""
        kept, dropped = [], []
        for f in self.findings:
            why = check(f.summary, f.explanation)
            if why is None:
                kept.append(f)
            else:
                dropped.append(f"{f.summary[:120]} ({why})")
        return self.model_copy(update={"findings": kept}), dropped

    def markdown(self) -> str:
        return report_markdown(self.title, self.summary, self.rating, self.rating_explanation,
                               [f.model_dump() for f in self.findings])



def report_props(report: CommunityReport) -> dict[str, Any]:
    """The graph properties of a report the model wrote (stored on its community)."""
    return {"title": report.title, "summary": report.summary, "rating": report.rating,
            "rank": report.rating, "rating_explanation": report.rating_explanation,
            "findings": json.dumps([f.model_dump() for f in report.findings]),
            "full_content": report.markdown(), "report_status": "ok", "report_error": None,
            "report_source": "llm", "reused_from": None}


class ReportCounts(BaseModel):
    """Reports built for one scope (`index.reports.build_reports`) or on demand
    (`query.lazy_reports.ensure_reports`: ``ok`` and ``failures`` only): LLM reports (``ok``),
    reports ``reused`` from a community with the same members and descriptions (another level
    or scope, an earlier hierarchy), reports ``composed`` from a tiny community's descriptions
    (no LLM call), communities ``waiting`` for a sub-community's failed report,
    ``invalid_citations`` removed from report text, ``unsupported_findings`` dropped (not held
    by their context: index/report_grounding.py), and the ``failures`` (item ``report
    <id>``)."""

    ok: int = 0
    reused: int = 0
    composed: int = 0
    waiting: int = 0
    invalid_citations: int = 0  # [Data: ...] ids in report text not in its context (removed)
    # findings whose words or names their context does not hold (index/report_grounding)
    unsupported_findings: int = 0
    # relationships and claims (evidence sentences, LLM_CLASS=small) left out of composed
    # reports (held to REPORT_MAX_TOKENS)
    left_out: int = 0
    titled: int = 0  # reports composed from evidence whose title a model wrote (small)
    titles_refused: int = 0  # ... whose title names what the evidence does not hold
    failures: list[Failure] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed(self) -> int:
        return len(self.failures)
