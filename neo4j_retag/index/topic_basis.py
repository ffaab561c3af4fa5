"""Incremental topics: what a topic build keeps from the last one.

Topics are mined by global queries over the general reports of one level (index/topics.py);
the reports follow from the entities and their descriptions, and a topic is a subject - new
subjects come with new entities. When topics are mined, every entity is marked
``topics_mined`` and the *mining basis* (``Meta {id: 'topics'}``) keeps how many there were,
the level, the subgraph mode and ``max_topics``. A later build (an ingest that added or
removed documents) measures

    change = (entities not marked + entities marked that are gone) / max(entities then, now)

and mines again when ``change`` exceeds ``TOPIC_REMINE_SHARE`` (default 0.1: a tenth of the
subjects new or gone) - or when there is no basis (never mined, or the last mining failed),
the mode or ``max_topics`` changed, or the build is an explicit `topics build`. Otherwise the
topics, their descriptions and the corpus description stay, and assignment labels only the
text units not labelled yet (``Chunk.topics_assigned``: new ones and ones whose labelling
failed); topic communities are clustered again (no LLM call) and reuse their reports by
``report_key``. ``reextract`` mode (topic-conditioned extraction) is always rebuilt in full.

Why entities and not the mined reports' keys: a report's key changes with any description of
any member, and the root level's few large reports hold the hub entities (a country, a
government) that almost every document adds a description to - on BBC-200 one added article
changed 9.7 % of the root reports' text by key, while it added 0.5 % of the entities.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..db import Graph, Record
from .topic_names import Topic


@dataclass
class Basis:
    """What mining reads now: the level, and the entities (all, and those marked mined)."""

    level: int | None
    entities: int = 0
    marked: int = 0

    def props(self, mode: str, max_topics: int) -> Record:
        return {"level": self.level, "entities": self.entities, "mode": mode,
                "max_topics": max_topics}


@dataclass
class Stored:
    """The last build's topics (with their labels), corpus description and basis."""

    topics: list[tuple[Topic, str]]
    corpus: str
    basis: Record | None


def current(graph: Graph, level: int | None) -> Basis:
    """The entities now, and how many of them were there when topics were mined."""
    row = graph.run("index/topic_entity_marks")[0]
    return Basis(level=level, entities=row["entities"], marked=row["marked"])


def stored(graph: Graph) -> Stored:
    row = graph.run("index/stored_topics")[0]
    topics = [(Topic(name=t["name"], description=t["description"] or ""), t["label"])
              for t in row["topics"] if t["name"]]
    return Stored(topics=topics, corpus=row["corpus_description"] or "", basis=row["basis"])


def change(basis: Record, now: Basis) -> float:
    """The share of the entities new or gone since mining (module doc); 1.0 when there were
    none either time."""
    then = basis.get("entities") or 0
    new, gone = now.entities - now.marked, max(0, then - now.marked)
    total = max(then, now.entities)
    return (new + gone) / total if total else 1.0


def keep_reason(last: Stored, now: Basis, mode: str, max_topics: int,
                threshold: float) -> tuple[bool, str]:
    """Whether the last build's topics are kept, and what is done and why, as the ingest
    summary's line says it ("topics kept: ...", "topics mined (none were ...)")."""
    b = last.basis
    if mode != "assign":
        return False, f"topics mined: mode {mode!r} is rebuilt in full"
    if not b or not last.topics:
        return False, "topics mined (none were, or the last mining failed)"
    if b.get("mode") != mode or b.get("max_topics") != max_topics:
        return False, "topics mined again: mode or max_topics changed"
    share = change(b, now)
    if share > threshold:
        return False, (f"{share:.1%} of the entities are new or gone since topics were mined "
                       f"(> TOPIC_REMINE_SHARE {threshold:.0%}): topics mined again")
    return True, (f"{share:.1%} of the entities are new or gone since topics were mined "
                  f"(<= TOPIC_REMINE_SHARE {threshold:.0%}): topics kept, new text units "
                  "labelled")


def save(graph: Graph, basis: Basis | None, mode: str = "assign", max_topics: int = 8) -> None:
    """After a mining that succeeded: mark every entity mined and store the basis; None
    (mining failed) removes the basis, so the next build mines again."""
    if basis is None or basis.level is None:
        graph.run("index/delete_topic_basis")
        return
    graph.run_script("index/mark_entities_mined")
    graph.run("index/set_topic_basis", basis=basis.props(mode, max_topics))
