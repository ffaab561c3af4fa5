"""Each community report paid once, by design, and tiny communities for free.

A report is a function of what its prompt shows: the community's members with their
descriptions, the relationships between them and the claims about them. Its ``report_key``
hashes exactly that (plus the model name: another model, other reports), so a community with
the same members and the same descriptions as one already reported — at another level (a
community Leiden did not split, a carried copy), in a topic scope (they repeat the general
communities), or in an earlier hierarchy (kept as ``:ReportArchive`` by ``index/communities``
until the new one is reported) — reuses that report without an LLM call; ``reused_from``
names the community it came from. Degrees are left out of the key: a relationship added
outside the community changes an endpoint's degree (a ranking hint in the context), not what
the report can say.

Communities of at most ``REPORT_COMPOSE_MAX_ENTITIES`` entities get a report composed from
their descriptions (``report_source: 'composed'``): a report of so few entities can only
restate their descriptions (docs/benchmarks.md, "What an index costs", says what is measured
of it).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .. import tokens
from ..community_report import report_markdown
from ..db import Graph, Record

# the report fields copied when a report is reused (community_report.report_props writes them)
REPORT_FIELDS = ("title", "summary", "rating", "rank", "rating_explanation", "findings",
                 "full_content", "report_status", "report_error", "report_source")


def membership_hash(members: list[str]) -> str:
    """The community's member set, as a short stable hash (``Community.membership``)."""
    return hashlib.sha256("\x1f".join(sorted(members)).encode()).hexdigest()[:24]


def report_key(elements: Record, how: str) -> str:
    """Hash of what a report of ``elements`` is written from, and ``how`` (the model name,
    or "composed"): equal keys, equal reports."""
    ents = sorted((e["key"], e["name"] or "", e["description"] or "")
                  for e in elements["entities"])
    rels = sorted((r["source_key"], r["target_key"], r["description"] or "")
                  for r in elements["relationships"])
    claims = sorted((c["key"], c["type"] or "", c["status"] or "", c["description"] or "")
                    for c in elements["claims"])
    blob = json.dumps([how, ents, rels, claims], ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


COMPOSED_FINDING_CHARS = 600  # one finding's explanation in a composed report, at most


def _cut(text: str, chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + " ..."


def _described(entity: Record) -> str:
    return (entity["description"] or "").strip() or "no description"


def composed_props(elements: Record, max_tokens: int = 1500,
                   enc: str = "cl100k_base") -> Record:
    """A report composed from the descriptions, no LLM call, never over ``max_tokens``
    (REPORT_MAX_TOKENS: the size a model's report may have): the entities (by degree) and
    their descriptions as the summary, one finding per relationship and per claim, the ones
    with most evidence first (a relationship's weight, the text units stating a claim;
    repeated claims once), each explanation within ``COMPOSED_FINDING_CHARS``. What does not
    fit is left out and counted: a last finding says how many, and ``report_left_out``."""
    ents = sorted(elements["entities"], key=lambda e: (-(e["degree"] or 0), e["key"]))
    names = [e["name"] for e in ents]
    title = names[0] if len(names) == 1 else (
        ", ".join(names[:-1]) + " and " + names[-1] if len(names) <= 3
        else f"{', '.join(names[:3])} and {len(names) - 3} more")
    share = max(200, 4 * max_tokens // (2 * max(1, len(ents))))  # chars: half the budget
    summary = " ".join(
        _cut(f"{e['name']}: {_described(e)}".rstrip("."), share) + "." for e in ents)
    rels = sorted(elements["relationships"],
                  key=lambda r: (-(r.get("weight") or 0), -(r["combined_degree"] or 0),
                                 r["source_key"], r["target_key"]))
    ranked = [{"summary": f"{r['source']} and {r['target']}",
               "explanation": _cut(r["description"] or "", COMPOSED_FINDING_CHARS)}
              for r in rels]
    claims: dict[tuple[str, str, str, str], int] = {}
    for c in elements["claims"]:  # the same text whatever the read order; repeats summed
        k = (c["entity"], c["type"] or "claim", c["status"] or "", (c["description"] or "")
             .strip())
        claims[k] = claims.get(k, 0) + (c.get("evidence") or 1)
    ranked += [{"summary": f"{k[0]}: {k[1]} ({k[2]})",
                "explanation": _cut(k[3], COMPOSED_FINDING_CHARS)}
               for k in sorted(claims, key=lambda k: (-claims[k], k))]
    explanation = (f"composed from the descriptions of {len(ents)} "
                   f"entit{'y' if len(ents) == 1 else 'ies'}; not rated by a model")
    rating = 1.0
    findings: list[dict[str, str]] = []
    used = tokens.count(report_markdown(title, summary, rating, explanation, []), enc)
    for f in ranked:
        n = tokens.count(f"## {f['summary']}\n\n{f['explanation']}\n\n", enc)
        if used + n > max_tokens - 40:  # room for the line saying what was left out
            break
        findings.append(f)
        used += n
    left = len(ranked) - len(findings)
    if left:
        findings.append({"summary": "Not shown", "explanation": (
            f"{left} more relationships and claims, with less evidence, left out: the report "
            f"is held to REPORT_MAX_TOKENS ({max_tokens})")})
    return {"title": title, "summary": summary, "rating": rating, "rank": rating,
            "rating_explanation": explanation, "findings": json.dumps(findings),
            "full_content": report_markdown(title, summary, rating, explanation, findings),
            "report_status": "ok", "report_error": None, "report_source": "composed",
            "report_left_out": left}


def reusable(graph: Graph, keys: list[str]) -> dict[str, list[Record]]:
    """Reports already written under ``keys`` (live communities of any scope first, then
    archived ones): key -> [{id, archived, report}]."""
    out: dict[str, list[Record]] = {}
    if keys:
        for row in graph.run("index/reports_by_key", keys=keys):
            out.setdefault(row["key"], []).append(row)
    return out


def reuse_props(cid: int, found: list[Record]) -> Record | None:
    """The props that give community ``cid`` a report found under its key: its own earlier
    report (the same id in an archived hierarchy) as it was, else another community's with
    ``reused_from`` naming it. None when nothing was found."""
    if not found:
        return None
    own = next((f for f in found if f["id"] == cid), None)
    src = own or found[0]
    props: dict[str, Any] = {k: src["report"].get(k) for k in REPORT_FIELDS}
    props["report_source"] = src["report"].get("report_source") or "llm"
    props["reused_from"] = None if own else src["id"]
    if own:
        props["reused_from"] = src["report"].get("reused_from")
    return props
