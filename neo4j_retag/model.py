"""The shared vocabulary: the general scope, typed query results and their trace (what a
search did and what its LLM calls cost), stage timing (entity keys: `keys`; a failed item:
`errors.Failure`).

Everything here is plain data: no I/O, no imports from the rest of the package except errors.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal

from pydantic import BaseModel, BeforeValidator, Field

from .errors import Failure
from .refusal import Refusal

log = logging.getLogger("neo4j_retag")

JSON = dict[str, Any]  # a JSON object: request parameters, a schema, a result written as JSON
GENERAL = "general"  # the scope of the whole graph's communities (topics have their labels)

# progress(task, n, total): advance ``task`` by ``n`` items; ``total`` when it becomes known
Progress = Callable[[str, int, "int | None"], None]


def no_progress(task: str, n: int, total: int | None = None) -> None:
    """A progress callback that reports nothing."""


def clamped(lo: float, hi: float, default: float) -> BeforeValidator:
    """A lenient number field (``Annotated[float, clamped(0, 10, 0.0)]``): numeric strings
    parsed, out-of-range values clamped to [lo, hi], anything else ``default``."""

    def coerce(v: Any) -> float:
        try:
            return min(hi, max(lo, float(v)))
        except (TypeError, ValueError):
            return default

    return BeforeValidator(coerce)


@contextmanager
def timed(seconds: dict[str, float], step: str) -> Iterator[None]:
    """Add the wall-clock seconds of the ``with`` body to ``seconds[step]`` (rounded to ms)."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        seconds[step] = round(seconds.get(step, 0) + time.perf_counter() - t0, 3)


class TextUnit(BaseModel):
    """One text unit of a document (GraphRAG's name; the graph's label is ``:Chunk``).

    ``index`` is its place in the document, ``prev_id`` the text unit before it. Read back
    for extraction or topic labelling, only ``id`` and ``text`` are loaded (the rest default).
    """

    id: str
    text: str
    index: int = 0
    n_tokens: int = 0
    prev_id: str | None = None


class ReportRow(BaseModel):
    """One community report as map-reduce reads it (or a text unit standing in for one):
    ``id`` is the community id; ``score`` the BM25 score when retrieved by ReTAG."""

    id: int
    title: str = ""
    full_content: str = ""
    level: int | None = None
    rank: float | None = None
    score: float | None = None
    composed: bool = False  # composed from descriptions without an LLM call
    summary: str = ""  # the report's summary paragraph, where the statement returns it

    @classmethod
    def from_record(cls, r: Mapping[str, Any]) -> ReportRow:
        return cls(id=r["id"], title=r.get("title") or "", full_content=r.get("full_content")
                   or "", level=r.get("level"), rank=r.get("rank"), score=r.get("score"),
                   composed=bool(r.get("composed")), summary=r.get("summary") or "")


class Citation(BaseModel):
    """A source an answer rests on: a community report (int id) or a text unit (str id, its
    ``location`` "report.pdf p. 7"). In ``Answer.citations`` it is cited in the answer text; in
    ``Answer.sources`` ``cited_in_answer`` says whether the answer text cites it too."""

    kind: Literal["report", "text_unit"] = "report"
    id: int | str
    title: str = ""
    level: int | None = None
    cited_in_answer: bool = True
    attributed: bool = False  # the marker was added by shared words: the model wrote none
    location: str | None = None


class Query(BaseModel):
    """What every query method takes: the question and the options of `neo4j-retag ask`."""

    question: str
    level: int | None = None  # community level; None = QUERY_LEVEL, clamped to the deepest
    top_p: int | None = None  # reports retrieved by BM25 (retag); None = TOP_P
    topic: str | None = None  # force a topic instead of classifying (retag)
    budget: int | None = None  # relevance tests (lazy); None = LAZY_BUDGET
    # rag's text units / retag's reports by: None = bm25 / RETRIEVAL; vector, hybrid need them
    retrieval: Literal["bm25", "vector", "hybrid"] | None = None
    response_type: str = "multiple paragraphs"


class LLMCost(BaseModel):
    """What LLM calls cost, in the one shape every cost is recorded in: per stage
    (`llm.Usage`), per search phase (``DriftSearch.phases``), for dynamic selection's ratings
    (``Selection.cost``) and per answer (``Trace.llm``, eval records). ``calls`` were answered
    by the endpoint, ``cached`` by the response cache (no tokens spent), ``failed`` attempts
    failed (each retry counts); tokens as the endpoint counted them; ``seconds`` spent inside
    the calls (concurrent calls each add theirs)."""

    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def __add__(self, other: LLMCost) -> LLMCost:
        return self._with(other, 1)

    def __sub__(self, other: LLMCost) -> LLMCost:
        """What was spent since ``other`` was read off the same counters."""
        return self._with(other, -1)

    def _with(self, other: LLMCost, sign: int) -> LLMCost:
        f = {k: getattr(self, k) + sign * getattr(other, k) for k in LLMCost.model_fields}
        return LLMCost(**f | {"seconds": round(f["seconds"], 3)})


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


class Selection(BaseModel):
    """Dynamic community selection's outcome: the threshold, reports rated (``reused``: without
    a call, repeating one rated), relevant ones, ratings that failed, the rating calls' cost."""

    threshold: float
    rated: int = 0
    relevant: int = 0
    failures: int = 0
    reused: int = 0
    cost: LLMCost = Field(default_factory=LLMCost)


class LazySearch(BaseModel):
    """The lazy method's budgeted search (query/lazy.py): relevance tests spent of the budget
    (a failed test spends one too), text units found relevant, BM25 matches, communities
    tested and pruned, levels reached; then the claim calls over the relevant text units."""

    budget: int
    tests: int = 0
    relevant: int = 0
    failed_tests: int = 0
    bm25_matches: int = 0
    communities_tested: int = 0
    communities_pruned: int = 0
    levels_reached: int = 0
    claim_calls: int = 0
    claim_failures: int = 0


class Routing(BaseModel):
    """``--method auto``'s decision: the kind of question, the method that answered it, the
    classification's one-line reason and the number of topics it read."""

    kind: Literal["global", "specific"]
    method: str
    reason: str = ""
    topics: int = 0


class Seeding(BaseModel):
    """How local search found its entities: ``embedding`` (nearest entity descriptions to the
    question's embedding, GraphRAG's way) or ``full_text`` (string match, the fallback
    without embeddings); the entities seeded, best first, with their scores."""

    by: Literal["embedding", "full_text"]
    entities: list[str] = Field(default_factory=list)
    scores: list[float] = Field(default_factory=list)


class DriftStep(BaseModel):
    """One DRIFT action (query/drift.py): a primer fold (depth 0) or a follow-up question
    answered by local search (depth: the round it was answered in, 1 to DRIFT_N_DEPTH); its
    intermediate ``answer`` and what that ``cited``, the 0-100 ``score`` the model gave it,
    ``parent`` the index of the step whose answer asked it, the ``follow_ups`` its answer
    asked. A follow-up waiting for its round has neither answer nor score."""

    query: str
    depth: int = 0
    parent: int | None = None
    answer: str = ""
    cited: list[Citation] = Field(default_factory=list)
    score: float | None = None
    follow_ups: list[str] = Field(default_factory=list)
    failed: bool = False
    seeded_by: Literal["embedding", "full_text"] | None = None  # follow-ups: Seeding.by
    in_reduce: bool = False


class DriftSearch(BaseModel):
    """``--method drift``'s search (query/drift.py): its limits, how the primer's reports were
    found (``hyde``: the embedding of a hypothetical answer; ``question``: the question's own
    embedding when the hypothetical answer failed; ``bm25``: no embeddings), the steps taken,
    the follow-ups left unanswered at the depth limit, and the LLM cost of each phase
    (``primer``, ``local``, ``reduce``)."""

    n_depth: int
    k_followups: int
    primer_folds: int
    primer_by: Literal["hyde", "question", "bm25"] = "hyde"
    primer_reports: int = 0
    steps: list[DriftStep] = Field(default_factory=list)
    followups_left: int = 0
    phases: dict[str, LLMCost] = Field(default_factory=dict)


class Trace(BaseModel):
    """What happened, for `ask` output and benchmarks (ReTAG Tables 5-7 measure these)."""

    method: str = "global"
    scope: str = GENERAL
    topic: str | None = None
    keywords: list[str] = Field(default_factory=list)
    retrieval: str = ""  # ReTAG's report retrieval: bm25, vector or hybrid (RETRIEVAL)
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
    stale_reports: int = 0  # reports left out: their members changed (documents deleted)
    chatter_stripped: int = 0  # free-text outputs (map points, answers) with chatter removed
    refinement: list[RefinementRound] = Field(default_factory=list)
    context: list[ContextReport] = Field(default_factory=list)  # reports that reached map
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
