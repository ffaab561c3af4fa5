"""An answer and its trace: what every method records (method, notes, failures, refusals,
the no-answer reason, seconds, LLM cost), the map-reduce counts most methods fill
(:class:`MapReduceTrace`), and the parts of single methods (a field each, its model in
``parts``)."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, Field

from ..errors import Failure
from ..refusal import Refusal
from .base import GENERAL, Citation, LLMCost
from .parts import DriftSearch, LazySearch, Routing, Seeding, Selection

log = logging.getLogger("neo4j_retag")


class RefinementRound(BaseModel):
    """One KGiRAG-style refinement round: what the LLM found missing, its keywords, and how
    many new reports BM25 brought."""

    missing: str
    keywords: list[str]
    new_reports: int


class ContextReport(BaseModel):
    """A community report that reached map-reduce (GraphRAG's "context data"): ``score`` is its
    BM25 score (retag), ``rating`` its relevance rating (dynamic community selection), ``cited``
    whether the answer text cites it."""

    id: int | str
    level: int | None = None
    title: str = ""
    score: float | None = None
    rating: float | None = None
    cited: bool = False
    composed: bool = False  # a report composed from descriptions, not written by the model


class MapReduceTrace(BaseModel):
    """What the report side counted: the topic, scope, level and keywords, the reports or text
    units retrieved, map batches and points, refinement rounds and the reports that reached
    map (GraphRAG's context data). Methods without map-reduce leave the defaults."""

    scope: str = GENERAL
    topic: str | None = None
    keywords: list[str] = Field(default_factory=list)
    retrieval: str = ""  # ReTAG's report retrieval: bm25, vector or hybrid (RETRIEVAL)
    answer: str = ""  # how the context became the answer: quote, one-call or map-reduce
    level: int = 0
    reports_retrieved: int = 0  # community reports (local: those in its context)
    # text units answered from: rag's retrieved, lazy's found relevant, local's in its context
    text_units_retrieved: int = 0
    map_batches: int = 0
    map_parse_failures: int = 0
    map_failures: int = 0
    points_total: int = 0
    points_zero: int = 0
    points_kept: int = 0
    points_in_reduce: int = 0
    points_degenerate: int = 0  # map points dropped: repeated, echoing or ungrounded text
    invalid_citations: list[str] = Field(default_factory=list)
    # answer sentences dropped: a copy of a report sentence about another subject, or a
    # quotation no report holds (checks.copies), each "sentence -- why"
    sentences_dropped: list[str] = Field(default_factory=list)
    stale_reports: int = 0  # reports left out: their members changed (documents deleted)
    refinement: list[RefinementRound] = Field(default_factory=list)
    context: list[ContextReport] = Field(default_factory=list)  # reports that reached map


class Trace(MapReduceTrace):
    """What happened, for `ask` output and benchmarks (ReTAG Tables 5-7 measure these): the
    map-reduce counts, each method's own part, and what every method records."""

    method: str = "global"
    chatter_stripped: int = 0  # free-text outputs (map points, answers) with chatter removed
    selection: Selection | None = None  # dynamic community selection
    lazy_search: LazySearch | None = None  # the lazy method's budgeted relevance search
    routing: Routing | None = None  # --method auto: what it chose and why
    seeding: Seeding | None = None  # local search: how its entities were found
    drift: DriftSearch | None = None  # --method drift: primer, follow-ups, cost per phase
    notes: list[str] = Field(default_factory=list)
    # LLM steps that failed and were done without (the reduce, a basic answer): each a note too
    failures: list[Failure] = Field(default_factory=list)
    refusals: list[Refusal] = Field(default_factory=list)  # replies the answer checks refused
    # why the answer is the no-answer sentence (nothing retrieved, every reply degenerate ...):
    # set, the answer is no answer and `ask` exits non-zero
    no_answer: str | None = None
    seconds: dict[str, float] = Field(default_factory=dict)
    llm: LLMCost = Field(default_factory=LLMCost)  # the answer's, every stage together
    llm_stages: dict[str, LLMCost] = Field(default_factory=dict)  # ... and by LLM stage

    def note(self, text: str, level: int = logging.INFO) -> None:
        """Record a fallback or an outcome worth knowing, in the trace and the log."""
        self.notes.append(text)
        log.log(level, "%s: %s", self.method, text)


class Answer(BaseModel):
    """A query method's result: the answer text, its citations and the trace.

    ``citations`` are exactly what the answer text cites (validated ids, the model's own
    ``[Data: ...]`` markers); ``sources`` are the reports that supported the map points the
    answer was reduced from, shown apart so that a reader can tell the two.
    """

    answer: str
    citations: list[Citation] = Field(default_factory=list)
    sources: list[Citation] = Field(default_factory=list)
    trace: Trace = Field(default_factory=Trace)

    @property
    def answered(self) -> bool:
        """False when the text is the no-answer sentence (``trace.no_answer`` says why)."""
        return self.trace.no_answer is None

    def as_dict(self) -> dict[str, Any]:
        """The JSON of `ask --json` and `POST /ask` alike, ``answered`` included."""
        return {**self.model_dump(), "answered": self.answered}
