"""Community reports composed from evidence, for a model that selects (``LLM_CLASS=small``):
each finding is sentences of the sources, cited by the text units that hold them; only the
title is the model's (Edge et al. 2024 §3.1.4's report, without the prose a small model
invents).

The sentences: the evidence of the community's entities, relationships and claims. They are
taken in turns over the entities, most central first (degree in the graph): each turn gives an
entity its best sentence not yet taken - the one that is evidence of the most central members
(relationships count their weight) - so a report covers its community before it deepens on
its hub, within ``REPORT_MAX_TOKENS``. A finding is one entity's sentences, under its name,
citing their text units (``[Data: Sources (...)]``); the summary names the members and says
where the sentences come from. The title is one short LLM call over the best sentences,
kept only when its names and at least one of its words are in them (else the members' names,
counted); a community of at most ``REPORT_COMPOSE_MAX_ENTITIES`` entities gets its members'
names without a call.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence

from .. import tokens
from ..checks.degenerate import content_words
from ..checks.grounding import names
from ..community_report import report_markdown
from ..db import Record
from ..errors import LLMError
from ..llm import LLM
from ..prompts import render
from ..stages import Stage
from ..text import strip_chatter

TITLE_SENTENCES = 6  # the best sentences the title call reads
TITLE_TOKENS = 24  # the title's completion tokens
MAX_TITLE_WORDS = 12


def _scores(members: dict[str, Record], ev: Record) -> tuple[dict[str, float],
                                                             dict[str, list[str]]]:
    """Each evidence sentence's score (the centrality of what it is evidence of) and, per
    member entity, its sentences."""
    degree = {k: float(e.get("degree") or 0) for k, e in members.items()}
    score: dict[str, float] = defaultdict(float)
    of: dict[str, list[str]] = defaultdict(list)
    for m in [*ev["mentions"], *ev["claimed"]]:
        if m["entity"] in members:
            score[m["sentence"]] += 1 + degree[m["entity"]]
            of[m["entity"]].append(m["sentence"])
    for link in ev["links"]:
        a, b = link["source"], link["target"]
        if a in members and b in members:
            score[link["sentence"]] += 2 + degree[a] + degree[b]
            of[a].append(link["sentence"])
            of[b].append(link["sentence"])
    return score, of


def pick(members: dict[str, Record], ev: Record, budget: int, enc: str
         ) -> list[tuple[str, list[Record]]]:
    """The sentences of the report, as (entity name, its sentences) findings, within
    ``budget`` tokens (module docstring)."""
    sentences = {s["id"]: s for s in ev["sentences"] if (s.get("text") or "").strip()}
    score, of = _scores(members, ev)
    order = sorted(members, key=lambda k: (-(members[k].get("degree") or 0), k))
    queues = {k: sorted(dict.fromkeys(i for i in of[k] if i in sentences),
                        key=lambda i: (-score[i], sentences[i].get("document_id") or "",
                                       sentences[i].get("index") or 0))
              for k in order}
    taken: set[str] = set()
    findings: dict[str, list[Record]] = {}
    used = 0
    while any(queues.values()):
        for k in order:
            queue = queues[k]
            while queue and queue[0] in taken:
                queue.pop(0)
            if not queue:
                continue
            s = sentences[queue.pop(0)]
            n = tokens.count(s["text"], enc) + 12  # its share of the finding's citation
            if used + n > budget:
                queues = {key: [] for key in queues}
                break
            taken.add(s["id"])
            findings.setdefault(k, []).append(s)
            used += n
    return [(members[k]["name"], sorted(ss, key=lambda s: (s.get("document_id") or "",
                                                           s.get("index") or 0)))
            for k in order if (ss := findings.get(k))]


def names_title(members: Sequence[Record]) -> str:
    """A title of the members' names, most central first."""
    ranked = [e["name"] for e in sorted(members, key=lambda e: (-(e.get("degree") or 0),
                                                                 e["key"]))]
    if len(ranked) <= 3:
        return ranked[0] if len(ranked) == 1 else ", ".join(ranked[:-1]) + " and " + ranked[-1]
    return f"{', '.join(ranked[:3])} and {len(ranked) - 3} more"


def grounded_title(title: str, evidence: str) -> str | None:
    """``title`` as the model wrote it, chatter and quotes stripped, when it is one line of
    at most MAX_TITLE_WORDS words whose names all occur in ``evidence`` and at least one of
    whose words does; else None."""
    title = strip_chatter(title)[0].strip().strip("#*\"'“”").strip()
    title = title.splitlines()[0].strip() if title else ""
    lower = evidence.casefold()
    if not title or len(title.split()) > MAX_TITLE_WORDS:
        return None
    # every capitalised word of a title is a name to the names rule: a title's own words,
    # capitalised as titles are, count when the evidence holds them
    missing = [w for w in names(f"x {title}") if w not in lower and w.rstrip("s") not in lower]
    if missing or not content_words(title) & content_words(evidence):
        return None
    return title


async def titled(llm: LLM, findings: list[tuple[str, list[Record]]], stage: Stage
                 ) -> str | None:
    """The model's title over the report's best sentences, when it is grounded
    (:func:`grounded_title`); None when it is not or the call failed. ``stage``: a general
    report's ``report_title``, a topic subgraph's ``topic_report_title``, a topic's own name
    ``topic_title`` (each counted apart: what topics add to the bill)."""
    best = [s["text"] for _, ss in findings for s in ss[:1]][:TITLE_SENTENCES]
    text = "\n".join(best)
    try:
        got = await llm.complete(render("index/report_title", sentences=text),
                                 stage=stage, max_tokens=TITLE_TOKENS,
                                 truncation_ok=True)
    except LLMError:
        return None
    return grounded_title(str(got), text)


def evidence_props(members: Sequence[Record], findings: list[tuple[str, list[Record]]],
                   title: str, left_out: int) -> Record:
    """The report's graph properties (``community_report.report_props``' fields):
    ``report_source: 'evidence'``, findings with their sentences' ids and places."""
    docs = {s.get("document_id") for _, ss in findings for s in ss}
    n = sum(len(ss) for _, ss in findings)
    summary = (f"{names_title(members)}: {n} sentence{'s' * (n != 1)} from {len(docs)} "
               f"document{'s' * (len(docs) != 1)}, quoted as the sources write them.")
    out = []
    for name, ss in findings:
        units = list(dict.fromkeys(s["chunk"] for s in ss if s.get("chunk")))
        cite = f" [Data: Sources ({', '.join(units)})]" if units else ""
        out.append({"summary": name, "explanation": " ".join(s["text"] for s in ss) + cite,
                    "sentences": [s["id"] for s in ss],
                    "locations": list(dict.fromkeys(s["location"] for s in ss
                                                    if s.get("location")))})
    explanation = f"composed from {n} evidence sentences; not rated by a model"
    shown = [{"summary": f["summary"], "explanation": f["explanation"]} for f in out]
    return {"title": title, "summary": summary, "rating": 1.0, "rank": 1.0,
            "rating_explanation": explanation, "findings": json.dumps(out),
            "full_content": report_markdown(title, summary, 1.0, explanation, shown),
            "report_status": "ok", "report_error": None, "report_source": "evidence",
            "report_left_out": left_out}
