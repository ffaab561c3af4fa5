"""The documents of the index: listing them, deleting some, and ingest jobs (the request a
front end sends and the job it follows)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints

from ..db import Graph
from ..index.delete import delete_documents as delete_by_refs
from ..index.delete import list_documents as document_rows
from .corpus import Request

MAX_ITEMS = 100  # paths or ids in one request
Ref = Annotated[str, StringConstraints(min_length=1)]  # its length: the body cap


class Lost(BaseModel):
    """What a document's reader could not read: counts as strings, None when none."""

    pages_without_text: str | None = None
    hidden_slides: str | None = None
    hidden_shapes: str | None = None
    unmapped_glyphs: str | None = None


class Document(BaseModel):
    """``entities``: the distinct entities its text units mention, ``entities_only_here`` of
    those the ones no other document mentions; ``text_units_lossy``: text units holding an
    unreadable character (U+FFFD); ``ingested_at``: an ISO timestamp."""

    id: str
    title: str | None = None
    path: str | None = None
    text_units: int
    text_units_lossy: int
    entities: int
    entities_only_here: int
    ingested_at: str | None = None
    lost: Lost


class Documents(BaseModel):
    documents: list[Document]


class DeleteDocuments(Request):
    ids: list[Ref] = Field(min_length=1, max_length=MAX_ITEMS, description="document ids, "
                           "8+ character id prefixes or paths as ingested")


class DocumentRef(BaseModel):
    id: str
    title: str | None = None
    path: str | None = None


class Deleted(BaseModel):
    """What a delete removed; communities, reports and topics are rebuilt by the next
    ingest."""

    documents: list[DocumentRef]
    entities_to_resummarise: int
    relationships_to_resummarise: int
    nodes_deleted: int
    relationships_deleted: int


class IngestRequest(Request):
    paths: list[Ref] = Field(min_length=1, max_length=MAX_ITEMS,
                             description="files or folders under SERVE_INGEST_ROOT")
    topics: bool = Field(True, description="build ReTAG topics after the graph")


class JobRef(Request):
    job_id: Annotated[str, StringConstraints(max_length=64)] = Field(
        description="the id `ingest` gave")


class Job(BaseModel):
    """One ingest job: ``progress`` is ``{stage: [done, total or None]}``, ``result`` the
    ingest's summary (``IngestResult`` as JSON) once it ended, ``error`` one line when it
    failed."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    status: Literal["running", "done", "failed items", "failed"] = "running"
    paths: list[str]
    progress: dict[str, list[int | None]] = Field(default_factory=dict)
    result: dict[str, Any] | None = None
    error: str | None = None


def list_documents(graph: Graph, _: BaseModel | None = None) -> Documents:
    """Every document, oldest first."""
    return Documents(documents=[Document(**r) for r in document_rows(graph)])


def delete_documents(graph: Graph, req: DeleteDocuments) -> Deleted:
    """Delete the documents ``req.ids`` name and what only they support (one transaction).
    Raises NotFoundError naming every id that matches no document (nothing is deleted then),
    InputError while another run writes the index."""
    return Deleted(**delete_by_refs(graph, req.ids))
