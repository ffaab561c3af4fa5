"""ReTAG's topics without written topic reports (``TOPIC_MODE=communities``, the default for
``LLM_CLASS=small``): the topics are groups of the general graph's communities, named and
described from their own evidence; no global-search mining, no text unit assignment.

- **Candidates**: the root communities (level 0); one holding more than
  ``RETAG_TOPIC_MAX_SHARE`` of the entities narrows nothing (the query side would not offer
  it), so its sub-communities stand in for it, down the hierarchy while one still does. Those
  of fewer than ``TOPIC_MIN_ENTITIES`` entities are no topic: a name of two or three entity
  names tells the classifier nothing an entity search would not, and an "other" topic has no
  subject to name; a question about them matches no topic and the general graph answers it
  (the build lists them as uncovered root communities).
- **Groups**: the ``max_topics`` largest candidates are the topics' seeds; each other
  candidate joins the seed it shares most text units with (the sources mention them
  together) unless that takes the topic past ``RETAG_TOPIC_MAX_SHARE`` of the entities (then
  the next), and one sharing none is left out (uncovered). Text units, not report
  embeddings: an ingest embeds after it builds topics. Deterministic: sizes, shared counts,
  then ids decide.
- **Name**: a topic of one community is its report's title (grounded already: a small
  model's checked title, or the members' names); a topic of several gets one short
  ``topic_title`` call over its best evidence sentences, held to them as a report title is
  (``report_compose.grounded_title``), else its largest community's title.
- **Description**: its best evidence sentences (its most central entities', one each, up to
  ``DESCRIPTION_WORDS`` words), as the sources write them. The corpus description is the
  topics' names.

Membership: the entities of a topic's communities carry its label (``:TopicN``); the labelled
projection then gives the topic's subgraph its own Leiden communities and reports
(index/topics.py), composed from evidence for a small model and reused by ``report_key``
where a community repeats a general one.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field

from ..config import Settings
from ..db import Graph, Record
from ..llm import LLM
from ..stages import Stage
from .report_compose import names_title, pick, titled
from .topic_names import Topic, same_topic

log = logging.getLogger(__name__)
DESCRIPTION_WORDS = 60  # a topic's description: its best sentences up to this many words


@dataclass(frozen=True)
class Candidate:
    """A general community a topic may be made of."""

    id: int
    level: int
    size: int
    title: str = ""
    parent: int | None = None


@dataclass
class Group:
    """One topic's communities, its seed (the largest) first."""

    communities: list[Candidate]

    @property
    def seed(self) -> Candidate:
        return self.communities[0]

    @property
    def ids(self) -> list[int]:
        return [c.id for c in self.communities]


@dataclass
class Plan:
    """The topics' groups, and the candidates no topic holds (too small, or sharing no text
    unit with any seed)."""

    groups: list[Group]
    too_small: list[Candidate] = field(default_factory=list)
    unattached: list[Candidate] = field(default_factory=list)


def candidates(rows: list[Record], total: int, max_share: float) -> list[Candidate]:
    """The root communities, each one over ``max_share`` of ``total`` entities replaced by
    its sub-communities (while it has two or more: a carried copy is no split), largest
    first (module doc)."""
    comms = [Candidate(r["id"], r["level"], r["size"] or 0, r.get("title") or "", r["parent"])
             for r in rows]
    children: dict[int | None, list[Candidate]] = defaultdict(list)
    for c in comms:
        children[c.parent].append(c)
    out: list[Candidate] = []
    stack = [c for c in comms if c.level == 0]
    while stack:
        c = stack.pop()
        kids = children.get(c.id, [])
        if total and c.size / total > max_share and len(kids) >= 2:
            stack.extend(kids)
        else:
            out.append(c)
    return sorted(out, key=lambda c: (-c.size, c.id))


def group(cands: list[Candidate], max_topics: int, min_entities: int,
          units: dict[int, set[str]], cap: float = float("inf")) -> Plan:
    """Seeds and the candidates that join them by shared text units (module doc); ``units``
    holds the text units of every candidate past the seeds and of the seeds. A candidate
    never takes a topic past ``cap`` entities (RETAG_TOPIC_MAX_SHARE of them: such a topic
    would not be offered); it joins the next seed it shares text units with, or none."""
    big = [c for c in cands if c.size >= min_entities]
    plan = Plan(groups=[Group([c]) for c in big[:max_topics]],
                too_small=[c for c in cands if c.size < min_entities])
    for c in big[max_topics:]:
        mine = units.get(c.id, set())
        ranked = sorted(((len(mine & units.get(g.seed.id, set())), g) for g in plan.groups),
                        key=lambda x: (-x[0], -x[1].seed.size, x[1].seed.id))
        fits = [g for shared, g in ranked
                if shared and sum(m.size for m in g.communities) + c.size <= cap]
        if fits:
            fits[0].communities.append(c)
        else:
            plan.unattached.append(c)
    return plan


def description(findings: list[tuple[str, list[Record]]], words: int = DESCRIPTION_WORDS
                ) -> str:
    """The first sentence of each finding (its entity's best, most central entity first) up to
    ``words`` words, at least one sentence; whitespace made single."""
    out: list[str] = []
    used = 0
    for _, ss in findings:
        text = " ".join((ss[0].get("text") or "").split()) if ss else ""
        n = len(text.split())
        if not text or (out and used + n > words):
            continue
        out.append(text)
        used += n
    return " ".join(out)


def unique_names(names: list[str], fallbacks: list[str]) -> list[str]:
    """Topic names none of which repeats an earlier one: a near-duplicate
    (``topic_names.same_topic``) takes its fallback (its members' names), and a name still
    taken gets a number."""
    out: list[str] = []
    for name, other in zip(names, fallbacks, strict=True):
        if any(same_topic(name, o) for o in out):
            name = other
        base, n = name, 2
        while name.casefold() in {o.casefold() for o in out}:
            name, n = f"{base} ({n})", n + 1
        out.append(name)
    return out


@dataclass
class Built:
    """What :func:`community_topics` made: the topics, their labels and communities, the
    corpus description, the name calls and how many were refused."""

    topics: list[Topic]
    labels: list[str]
    communities: list[list[int]]
    corpus: str
    plan: Plan
    titles: int = 0
    titles_refused: int = 0


def _evidence(graph: Graph, ids: list[int]) -> tuple[dict[str, Record], Record]:
    """A group's members (key -> {key, name, degree}) and their evidence, merged over its
    communities (``index/community_evidence``'s shape)."""
    members = {m["key"]: m for r in graph.run_paged("index/community_members", "ids", ids)
               for m in r["members"]}
    ev: Record = {"mentions": [], "links": [], "claimed": [], "sentences": []}
    for r in graph.run_paged("index/community_evidence", "ids", ids):
        for k in ev:
            ev[k] += r[k]
    return members, ev


async def community_topics(graph: Graph, llm: LLM, settings: Settings,
                           max_topics: int) -> Built:
    """The topics of the general graph's communities (module doc), written as :Topic nodes
    (the earlier topics cleared) with their entities labelled."""
    total = graph.run("index/graph_counts", label="Entity")[0]["nodes"]
    cands = candidates(graph.run("index/topic_candidates"), total,
                       settings.query.retag_topic_max_share)
    big = [c.id for c in cands if c.size >= settings.index.topic_min_entities]
    # only needed when some must join a seed (more than max_topics)
    units = {r["id"]: set(r["units"]) for r in graph.run_paged(
        "index/community_text_units", "ids", big)} if len(big) > max_topics else {}
    plan = group(cands, max_topics, settings.index.topic_min_entities, units,
                 cap=settings.query.retag_topic_max_share * total)
    built = Built([], [], [], "", plan)
    names, fallbacks, descriptions = [], [], []
    for g in plan.groups:
        members, ev = _evidence(graph, g.ids)
        findings = pick(members, ev, settings.index.report_max_tokens, settings.encoding)
        own = names_title(list(members.values())) if members else f"community {g.seed.id}"
        name = g.seed.title or own
        if len(g.communities) > 1 and findings:
            got = await titled(llm, findings, Stage.TOPIC_TITLE)
            built.titles += 1
            if got is None:
                built.titles_refused += 1
                log.warning("topic of communities %s: its title call was refused or failed; "
                            "named by its largest community's title %r", g.ids, name)
            name = got or name
        names.append(Topic(name=name).name)  # as stored: spaces made single, cut to 80
        fallbacks.append(Topic(name=own).name)
        descriptions.append(description(findings))
    for name, desc, g in zip(unique_names(names, fallbacks), descriptions, plan.groups,
                             strict=True):
        built.topics.append(Topic(name=name, description=desc))
        built.communities.append(g.ids)
    built.labels = [f"Topic{i}" for i in range(len(built.topics))]
    built.corpus = ("Topics, largest first: " + "; ".join(t.name for t in built.topics) + "."
                    if built.topics else "")
    graph.run_script("index/clear_topics")
    rows = [{"name": t.name, "description": t.description, "label": lb, "communities": ids}
            for t, lb, ids in zip(built.topics, built.labels, built.communities, strict=True)]
    graph.run("index/create_topics", corpus_description=built.corpus, topics=rows)
    graph.run("index/label_topic_communities", topics=rows)
    return built

