"""Written text held to its evidence: each sentence a model wrote (an entity's description, a
summary of descriptions) is kept only when the evidence it was written from supports it -
the report-finding check (``grounding.FindingCheck``: enough of its words in the evidence,
every name it gives held by it), applied sentence by sentence."""

from __future__ import annotations

from .grounding import FindingCheck
from .sentences import split


def supported(text: str, evidence: str | FindingCheck) -> tuple[str, int]:
    """``text`` without its sentences ``evidence`` does not support, and how many were
    removed; ``text`` itself, untouched, when none was."""
    check = evidence if isinstance(evidence, FindingCheck) else FindingCheck(evidence)
    parts = split(text)
    kept = [p for p in parts if check("", p) is None]
    return (text if len(kept) == len(parts) else " ".join(kept)), len(parts) - len(kept)
