"""What the indexing stages return: typed results (a field typo fails at once, not silently),
each failed item an `errors.Failure`. `neo4j-retag ingest --json` and `topics build --json`
print them (``model_dump``)."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from ..community_report import ReportCounts
from ..errors import Failure
from .topic_names import Topic


class TopicCount(BaseModel):
    """One topic's subgraph: its entities, communities and reports."""

    name: str
    label: str
    entities: int = 0
    communities: int = 0
    reports: int = 0
    reused: int = 0  # of its reports, those reused from a community with the same members


class UncoveredCommunity(BaseModel):
    """A root community of the general graph none of whose entities is in a topic."""

    id: int
    title: str = ""
    size: int | None = None


class TopicsResult(BaseModel):
    """`build_topics`: the topics kept, those ``dropped_topics`` (no subgraph), the corpus
    description, report counts per topic label, per-topic ``counts``, the coverage check,
    and the items that ``failed`` (with any, topics stay stale: the next run rebuilds them)."""

    mode: str = "assign"  # how they were built: communities, assign or reextract
    topics: list[Topic] = Field(default_factory=list)
    dropped_topics: list[str] = Field(default_factory=list)
    # topics that held most of the graph, replaced by narrower ones (index/topic_split.py)
    split_topics: list[str] = Field(default_factory=list)
    # topics over the share the model gave fewer than two narrower topics for: kept as they are
    unsplit_topics: list[str] = Field(default_factory=list)
    corpus_description: str = ""
    mined: bool = True  # False: an incremental build kept the last topics (index/topic_basis)
    why: str = ""  # why the topics were mined again or kept
    text_units_labelled: int = 0  # text units sent to topic assignment
    # TOPIC_MODE=communities: each topic's general communities, and the name calls (a topic of
    # several communities) and how many were refused (named by its largest community's title)
    topic_communities: dict[str, list[int]] = Field(default_factory=dict)
    topic_titles: int = 0
    topic_titles_refused: int = 0
    reports: dict[str, ReportCounts] = Field(default_factory=dict)
    counts: list[TopicCount] = Field(default_factory=list)
    uncovered_root_communities: list[UncoveredCommunity] = Field(default_factory=list)
    failed: list[Failure] = Field(default_factory=list)


class EmbedCounts(BaseModel):
    """The embed stage: nodes embedded now, by kind, and the ``failures`` (item
    ``chunk <id>``, ``entity <key>``, ``community <id>``; retried by the next run)."""

    text_units: int = 0
    entities: int = 0
    reports: int = 0
    failures: list[Failure] = Field(default_factory=list)


# skipped inputs that are not documents at all (a folder's images, an empty file): listed
# only; any other reason is a document that could not be read, which fails the run (exit 3)
NOT_DOCUMENTS = frozenset({"unsupported", "binary", "empty"})


class IngestResult(BaseModel):
    """`run_ingest`: what each stage did and every item that failed (retried by the next
    run) or input skipped (listed; a document that could not be read - encrypted, no text
    layer, corrupt - counts as failed, and the next run tries it again)."""

    documents_read: int = 0
    documents_new: int = 0
    documents_replaced: int = 0
    skipped: list[Failure] = Field(default_factory=list)
    text_units_new: int = 0
    text_units_extracted: int = 0
    text_units_failed: list[Failure] = Field(default_factory=list)
    text_units_total: int = 0  # in the graph when extraction began
    text_units_pending: int = 0  # of those, not extracted yet
    dropped_records: dict[str, int] = Field(default_factory=dict)  # reason -> records dropped
    # what the documents read in this run lost, by reason: documents.LOST_KEYS summed over
    # them (pages, slides, characters) and ``text_units`` holding an unreadable character
    lossy: dict[str, int] = Field(default_factory=dict)
    elements_summarized: int = 0
    descriptions_joined: int = 0  # of those, several descriptions joined without a call
    summaries_failed: list[Failure] = Field(default_factory=list)  # elements kept dirty
    communities_rebuilt: bool = False
    reports: ReportCounts = Field(default_factory=ReportCounts)
    topics: TopicsResult | None = None  # when topics were rebuilt
    # free-text outputs (summaries, reports) that needed the model's chatter stripped, by stage;
    # and summary sentences their descriptions do not support, removed (index/elements)
    chatter_stripped: Counter[str] = Field(default_factory=Counter)
    topics_failed: list[Failure] = Field(default_factory=list)
    embeddings: EmbedCounts = Field(default_factory=EmbedCounts)
    outcomes: list[str] = Field(default_factory=list)  # stages skipped, and why
    seconds: dict[str, float] = Field(default_factory=dict)

    @property
    def failures(self) -> dict[str, list[Failure]]:
        """Every item that failed in this run, by kind (a report's item is ``report <id>``)."""
        return {"text unit": self.text_units_failed, "summary": self.summaries_failed,
                "community": self.reports.failures, "topic item": self.topics_failed,
                "embedding": self.embeddings.failures}

    @property
    def unread(self) -> list[Failure]:
        """The skipped inputs that are documents which could not be read."""
        return [s for s in self.skipped if s.reason not in NOT_DOCUMENTS]

    @property
    def failed_items(self) -> int:
        """Items that failed in this run, documents not read included (each tried again by
        the next run): `ingest` exits 3."""
        return sum(map(len, self.failures.values())) + len(self.unread)
