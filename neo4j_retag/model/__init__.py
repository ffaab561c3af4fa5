"""The shared vocabulary: the general scope, typed query results and their trace (what a
search did and what its LLM calls cost), stage timing (entity keys: `keys`; a failed item:
`errors.Failure`). ``base`` holds the plain shapes, ``trace`` an answer and its trace, ``parts``
the trace parts of single methods.

Everything here is plain data: no I/O, no imports from the rest of the package except errors.
"""

from .base import (
    GENERAL,
    JSON,
    Citation,
    LLMCost,
    Options,
    Progress,
    Query,
    ReportRow,
    SourceSentence,
    TextUnit,
    clamped,
    no_progress,
    option,
    timed,
)
from .parts import DriftSearch, DriftStep, LazySearch, Routing, Seeding, Selection
from .trace import Answer, ContextReport, MapReduceTrace, RefinementRound, Trace

__all__ = ["GENERAL", "JSON", "Answer", "Citation", "ContextReport", "DriftSearch", "DriftStep",
           "LLMCost", "LazySearch", "MapReduceTrace", "Options", "Progress", "Query",
           "RefinementRound", "ReportRow", "Routing", "Seeding", "Selection", "SourceSentence",
           "TextUnit", "Trace", "clamped", "no_progress", "option", "timed"]
