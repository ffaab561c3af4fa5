"""The shared vocabulary's base: the general scope, progress, timing, text units, report
rows, citations, the query and the one shape of an LLM cost (plain data, no I/O)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SerializeAsAny

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


class SourceSentence(BaseModel):
    """One sentence of a source document (``:Sentence``): the evidence an entity, relationship
    or claim rests on and what a quoted answer quotes. ``id`` is ``<document>-s<n>``,
    ``index`` its place in the document, ``location`` where it is ("report.pdf p. 7"; "" when
    unknown), ``page`` its page (PDF)."""

    id: str
    text: str
    index: int = 0
    location: str = ""
    page: int | None = None


class TextUnit(BaseModel):
    """One text unit of a document (GraphRAG's name; the graph's label is ``:Chunk``).

    ``index`` is its place in the document, ``prev_id`` the text unit before it;
    ``sentences`` the document's sentences it touches, whole (``index/sentences``). Read back
    for extraction or topic labelling, only ``id``, ``text`` and (extraction) ``sentences``
    are loaded (the rest default).
    """

    id: str
    text: str
    index: int = 0
    n_tokens: int = 0
    prev_id: str | None = None
    sentences: list[SourceSentence] = []
    location: str = ""


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
    # its findings as stored (JSON); a report composed from evidence lists each finding's
    # source sentence ids (what a quoted answer quotes), where the statement returns them
    findings: str = ""

    @classmethod
    def from_record(cls, r: Mapping[str, Any]) -> ReportRow:
        return cls(id=r["id"], title=r.get("title") or "", full_content=r.get("full_content")
                   or "", level=r.get("level"), rank=r.get("rank"), score=r.get("score"),
                   composed=bool(r.get("composed")), summary=r.get("summary") or "",
                   findings=r.get("findings") or "")


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


class Options(BaseModel):
    """A query method's own options, declared beside it as a subclass (``class
    LazyOptions(Options): budget: int | None = option("relevance tests", ge=1)``): each field
    one option, from which `ask`'s ``--budget``, the HTTP / MCP request field and the method's
    typed access (``LazyOptions.of(query).budget``) come. None: not given (the method reads its
    setting)."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def of(cls, query: Query) -> Self:
        """This method's options of ``query`` (those it declares; the others are not its)."""
        if type(query.options) is cls:
            return query.options
        return cls.model_validate({k: v for k, v in query.options if k in cls.model_fields})


def option(help: str, **bounds: Any) -> Any:
    """One option of a method's :class:`Options`: not given by default, ``help`` its help
    line (the CLI's, the OpenAPI's, the MCP tool's), ``bounds`` (``ge=1``, ``le=10_000``,
    ``max_length=200``) what every surface refuses beyond."""
    return Field(None, description=help, **bounds)


class Query(BaseModel):
    """What every query method takes: the question, the fields every method reads (level, the
    answerer, the response type) and the method's own ``options`` (:class:`Options`)."""

    model_config = ConfigDict(extra="forbid")

    question: str
    level: int | None = None  # community level; None = QUERY_LEVEL, clamped to the deepest
    # how the retrieved context becomes the answer (query/answer); None = ANSWER
    answer: Literal["quote", "one-call", "map-reduce"] | None = None
    response_type: str = "multiple paragraphs"
    options: SerializeAsAny[Options] = Field(default_factory=Options)


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
