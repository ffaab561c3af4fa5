"""Incremental topics (issue 18): what a topic build keeps from the last one.

Topics are mined by global queries over the general reports of one level (index/topics.py).
What they were mined from is stored as the *mining basis* (``Meta {id: 'topics'}``): the
level, the ``report_key`` and size (characters) of each report read, the subgraph mode and
``max_topics``. A later build (an ingest that added or removed documents) compares the
reports mining would read now with the basis:

    change = (characters of reports now whose key was not read
              + characters of reports read whose key is gone) / max(characters now, read)

``report_key`` hashes what a report is written from (members, descriptions, relationships,
claims, model: index/report_reuse.py), so an unchanged community counts 0 whatever its level
or id, and a report whose members gained one description counts whole. Topics are mined again
when ``change`` exceeds ``TOPIC_REMINE_SHARE`` (default 0.1, a tenth of what mining read) -
or when there is no basis (never mined, or the last mining failed), the mode or
``max_topics`` changed, or the build is an explicit `topics build`. Otherwise the topics,
their descriptions and the corpus description stay, and assignment labels only the text units
not labelled yet (``Chunk.topics_assigned``: new ones and ones whose labelling failed); topic
communities are clustered again (no LLM call) and reuse their reports by ``report_key``.
``reextract`` mode (topic-conditioned extraction) is always rebuilt in full.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..db import Graph, Record
from .topic_names import Topic


@dataclass
class Basis:
    """The reports topic mining reads at ``level``: report key -> characters."""

    level: int | None
    reports: dict[str, int] = field(default_factory=dict)

    def props(self, mode: str, max_topics: int) -> Record:
        keys = sorted(self.reports)
        return {"level": self.level, "keys": keys, "chars": [self.reports[k] for k in keys],
                "mode": mode, "max_topics": max_topics}


@dataclass
class Stored:
    """The last build's topics (with their labels), corpus description and basis."""

    topics: list[tuple[Topic, str]]
    corpus: str
    basis: Record | None


def current(graph: Graph, level: int | None) -> Basis:
    """The reports mining reads now at ``level``."""
    if level is None:
        return Basis(level=None)
    return Basis(level=level, reports={r["key"]: r["chars"] or 0 for r in graph.run(
        "index/level_report_keys", level=level) if r["key"]})


def stored(graph: Graph) -> Stored:
    row = graph.run("index/stored_topics")[0]
    topics = [(Topic(name=t["name"], description=t["description"] or ""), t["label"])
              for t in row["topics"] if t["name"]]
    return Stored(topics=topics, corpus=row["corpus_description"] or "", basis=row["basis"])


def change(basis: Record, now: Basis) -> float:
    """The share of the mined reports' characters that changed (module doc); 1.0 when
    nothing was read either time."""
    before = dict(zip(basis.get("keys") or [], basis.get("chars") or [], strict=False))
    added = sum(c for k, c in now.reports.items() if k not in before)
    gone = sum(c for k, c in before.items() if k not in now.reports)
    total = max(sum(now.reports.values()), sum(before.values()))
    return (added + gone) / total if total else 1.0


def keep_reason(last: Stored, now: Basis, mode: str, max_topics: int,
                threshold: float) -> tuple[bool, str]:
    """Whether the last build's topics are kept, and why (or why they are mined again)."""
    b = last.basis
    if mode != "assign":
        return False, f"mode {mode!r} is rebuilt in full"
    if not b or not last.topics:
        return False, "no topics mined yet (or the last mining failed)"
    if b.get("mode") != mode or b.get("max_topics") != max_topics:
        return False, "mode or max_topics changed"
    share = change(b, now)
    if share > threshold:
        return False, (f"{share:.1%} of the mined reports' text changed "
                       f"(> TOPIC_REMINE_SHARE {threshold:.0%}): topics mined again")
    return True, (f"{share:.1%} of the mined reports' text changed (<= TOPIC_REMINE_SHARE "
                  f"{threshold:.0%}): topics kept, new text units labelled")


def save(graph: Graph, basis: Basis | None, mode: str = "assign", max_topics: int = 8) -> None:
    """Store the basis of a mining that succeeded; None (mining failed) removes it."""
    if basis is None or basis.level is None:
        graph.run("index/delete_topic_basis")
    else:
        graph.run("index/set_topic_basis", basis=basis.props(mode, max_topics))
