"""The shared vocabulary: the general scope, typed query results, stage timing (entity keys:
`keys`).

Everything here is plain data: no I/O, no imports from the rest of the package except errors.
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal

from pydantic import BaseModel, BeforeValidator, Field

from .errors import LLMError, RetagError

# re-exported: the trace's parts of local search and DRIFT (one vocabulary, `model`)
from .search_trace import DriftSearch as DriftSearch
from .search_trace import DriftStep as DriftStep
from .search_trace import PhaseCost as PhaseCost
from .search_trace import Seeding as Seeding

log = logging.getLogger("neo4j_retag")

JSON = dict[str, Any]  # a JSON object: request parameters, a schema, a result written as JSON
GENERAL = "general"  # the scope of the whole graph's communities (topics have their labels)

# progress(task, n, total): advance ``task`` by ``n`` items; ``total`` when it becomes known
Progress = Callable[[str, int, "int | None"], None]


def no_progress(task: str, n: int, total: int | None = None) -> None:
    """A progress callback that reports nothing."""


# C0/C1 controls except tab, newline, carriage return; plus lone surrogates
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def clean(text: str) -> str:
    """NFC, no control characters or lone surrogates, normalised line ends: every text that
    reaches Neo4j (documents, imported tables) passes through here."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", unicodedata.normalize("NFC", text))


def clamped(lo: float, hi: float, default: float) -> BeforeValidator:
    """A lenient number field (``Annotated[float, clamped(0, 10, 0.0)]``): numeric strings
    parsed, out-of-range values clamped to [lo, hi], anything else ``default``."""

    def coerce(v: Any) -> float:
        try:
            return min(hi, max(lo, float(v)))
        except (TypeError, ValueError):
            return default

    return BeforeValidator(coerce)


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


@contextmanager
def timed(seconds: dict[str, float], stage: str) -> Iterator[None]:
    """Add the wall-clock seconds of the ``with`` body to ``seconds[stage]`` (rounded to ms)."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        seconds[stage] = round(seconds.get(stage, 0) + time.perf_counter() - t0, 3)


class Failure(BaseModel):
    """One item that failed, in every stage alike (a text unit, an element summary, a community
    report, a topic item, an eval answer or verdict): the next run retries it.

    ``item`` names it (a text unit id, ``"report 12"``, ``"topic reduce"`` ...), ``reason`` is a
    short code (an `LLMError` reason such as ``truncated`` or ``timeout``, ``llm_error``,
    ``incomplete``, or the exception's class name for anything else), ``error`` the message,
    cut to 300 characters.
    """

    item: str
    reason: str = "llm_error"
    error: str = ""

    @classmethod
    def of(cls, item: object, err: BaseException | str, reason: str | None = None) -> Failure:
        """The failure of ``item`` by ``err``: the reason is ``reason``, else the error's own
        ``reason`` field (`LLMError`), else ``incomplete`` for a message, else its class."""
        if reason is None:
            if isinstance(err, str):
                reason = "incomplete"
            elif isinstance(err, LLMError):
                reason = err.reason
            else:
                reason = "llm_error" if isinstance(err, RetagError) else type(err).__name__
        return cls(item=str(item), reason=reason, error=str(err)[:300])

    def line(self) -> str:
        """The one line a user reads: ``item (reason): error``."""
        msg = self.error.removeprefix(f"{self.reason}: ")
        return f"{self.item} ({self.reason}): {msg}"


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
    """One community report as map-reduce reads it (or a text unit standing in for one).

    ``id`` is the community id; ``score`` the BM25 score when retrieved by ReTAG.
    """

    id: int
    title: str = ""
    full_content: str = ""
    level: int | None = None
    rank: float | None = None
    score: float | None = None
    composed: bool = False  # composed from descriptions without an LLM call (issue 18)

    @classmethod
    def from_record(cls, r: Mapping[str, Any]) -> ReportRow:
        return cls(id=r["id"], title=r.get("title") or "", full_content=r.get("full_content")
                   or "", level=r.get("level"), rank=r.get("rank"), score=r.get("score"),
                   composed=bool(r.get("composed")))


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
    """Dynamic community selection's outcome: the threshold, reports rated, relevant ones,
    ratings that failed, and the rating calls' own cost (LLM stage ``rate``)."""

    threshold: float
    rated: int = 0
    relevant: int = 0
    failures: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


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


class Trace(BaseModel):
    """What happened, for `ask` output and benchmarks (ReTAG Tables 5-7 measure these)."""

    method: str = "global"
    scope: str = GENERAL
    topic: str | None = None
    keywords: list[str] = Field(default_factory=list)
    retrieval: str = ""  # ReTAG's report retrieval: bm25, vector or hybrid (RETRIEVAL)
    level: int = 0
    reports_retrieved: int = 0
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
    # why the answer is the no-answer sentence (nothing retrieved, every reply degenerate ...):
    # set, the answer is no answer and `ask` exits non-zero
    no_answer: str | None = None
    seconds: dict[str, float] = Field(default_factory=dict)
    llm: dict[str, Any] = Field(default_factory=dict)

    def note(self, text: str, level: int = logging.INFO) -> None:
        """Record a fallback or an outcome worth knowing, in the trace and the log."""
        self.notes.append(text)
        log.log(level, "%s: %s", self.method, text)

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump()


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
        return self.model_dump()
