"""What a reader or an agent looks at beside the answers: the corpus description and topics,
community reports (BM25 search, one report with its findings and entities), a text unit.
Requests carry their bounds; responses are the public shapes (not a Cypher RETURN clause)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..db import Graph
from ..errors import NotFoundError
from ..model import GENERAL
from ..query.retrieval import lucene_query

MAX_K = 50
MAX_ENTITIES = 50
INT64 = (-(2**63), 2**63 - 1)  # Neo4j's integer: a larger id would fail inside Neo4j (a 500)
Text = Annotated[str, StringConstraints(max_length=1000)]


class Request(BaseModel):
    """An operation's request: a field it does not know is refused, naming it (an argument
    dropped silently would be a misspelt option the client believes was used)."""

    model_config = ConfigDict(extra="forbid")


class NoRequest(Request):
    """An operation that takes nothing."""


class Topic(BaseModel):
    name: str
    description: str | None = None


class Topics(BaseModel):
    """What the corpus is about (written when topics are built; "" before) and its topics."""

    corpus_description: str
    topics: list[Topic]


class SearchReports(Request):
    query: Text = Field(description="words to look for (BM25 over every community report)")
    k: int = Field(10, ge=1, le=MAX_K, description=f"how many reports, 1 to {MAX_K}")


class ReportHit(BaseModel):
    id: int
    title: str | None = None
    summary: str | None = None
    level: int
    score: float


class ReportHits(BaseModel):
    """The best community reports first (any level of the general graph)."""

    reports: list[ReportHit]


class ReportRef(Request):
    report_id: int = Field(ge=INT64[0], le=INT64[1], description="a community report's id")


class Evidence(BaseModel):
    """A sentence of a source: its ``text``, where it is, the entities it is evidence of."""

    id: str
    text: str
    location: str = ""
    page: int | None = None
    entities: list[str] = []


class Finding(BaseModel):
    """A report's finding; a report composed from evidence lists the source sentences it
    quotes (``evidence``, with their places)."""

    summary: str = ""
    explanation: str = ""
    evidence: list[Evidence] = []


class ReportEntity(BaseModel):
    name: str
    type: str | None = None
    description: str | None = None


class Report(BaseModel):
    """One community report; ``entities``: its best connected members, at most 50."""

    id: int
    title: str | None = None
    summary: str | None = None
    level: int
    scope: str
    rating: float | None = None
    rating_explanation: str | None = None
    findings: list[Finding]
    entities: list[ReportEntity]


class TextUnitRef(Request):
    unit_id: Text = Field(description="a text unit's id (a citation of kind text_unit)")


class TextUnit(BaseModel):
    """One text unit, its document and place, and its ``sentences`` (the evidence of the
    graph's elements, each with the entities it is evidence of)."""

    id: str
    text: str
    document_id: str
    title: str | None = None
    path: str | None = None
    location: str | None = None
    sentences: list[Evidence] = []


def corpus_description(graph: Graph) -> str:
    return graph.run("query/corpus")[0]["description"] or ""


def topic_rows(graph: Graph) -> list[Topic]:
    """The topics that have a subgraph (the classifier's choices), by label."""
    return [Topic(name=t["name"], description=t["description"])
            for t in graph.run("query/topics")]


def list_topics(graph: Graph, _: NoRequest | None = None) -> Topics:
    """The corpus description and the topics."""
    return Topics(corpus_description=corpus_description(graph), topics=topic_rows(graph))


def search_reports(graph: Graph, req: SearchReports) -> ReportHits:
    """The ``k`` best community reports of the whole graph by BM25 (any level); none for a
    query of no searchable word."""
    q = lucene_query(req.query)
    rows = graph.run("serve/search_reports", query=q, scope=GENERAL, k=req.k) if q else []
    return ReportHits(reports=[ReportHit(**r) for r in rows])


def get_report(graph: Graph, req: ReportRef) -> Report:
    """One report with its findings and entities. Raises NotFoundError."""
    rows = graph.run("serve/report", id=req.report_id, max_entities=MAX_ENTITIES)
    if not rows:
        raise NotFoundError(f"no community report {req.report_id}")
    findings = _findings(rows[0].get("findings"))
    ids = [i for f in _raw(rows[0].get("findings")) for i in f.get("sentences") or []]
    if ids:  # composed from evidence: each finding with the sentences it quotes
        found = {r["id"]: Evidence(id=r["id"], text=r["text"], location=r["location"] or "")
                 for r in graph.run("serve/sentences", ids=ids)}
        for f, raw in zip(findings, _raw(rows[0].get("findings")), strict=True):
            f.evidence = [found[i] for i in raw.get("sentences") or [] if i in found]
    return Report(**{**rows[0], "findings": findings})


def get_text_unit(graph: Graph, req: TextUnitRef) -> TextUnit:
    """One text unit with its document's id, title and path. Raises NotFoundError."""
    rows = graph.run("serve/text_unit", id=req.unit_id)
    if not rows:
        raise NotFoundError(f"no text unit {req.unit_id}")
    return TextUnit(**rows[0])


def _raw(value: Any) -> list[dict[str, Any]]:
    """Findings as stored (a JSON string; an imported graph may hold a list), the objects."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [{"summary": value}]
    return [f for f in value or [] if isinstance(f, dict)]


def _findings(value: Any) -> list[Finding]:
    return [Finding(summary=str(f.get("summary") or ""),
                    explanation=str(f.get("explanation") or "")) for f in _raw(value)]
