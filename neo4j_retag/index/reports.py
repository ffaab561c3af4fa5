"""Community reports, bottom-up (Edge et al. 2024 §3.1.5 and appendix "hierarchical community
summarization").

Leaf context: entity, relationship and claim records, relationships ranked by the combined
degree of their endpoints, added until the token budget is full. A community whose raw context
overflows substitutes its sub-communities' reports, biggest first, until it fits.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from ..checks.grounding import FindingCheck
from ..community_report import CommunityReport, ReportCounts, report_props
from ..config import Settings
from ..db import Graph, Record
from ..errors import Failure, LLMError, error_text
from ..llm import LLM
from ..model import GENERAL, Progress, no_progress
from ..prompts import csv_line, csv_table, render
from ..stages import Stage
from ..tokens import count, truncate
from .report_compose import evidence_props, names_title, pick, titled
from .report_reuse import composed_props, report_key, reusable, reuse_props

# communities whose contexts are read (and reports stored) together: at most this many, and
# together at most this many member entities (their relationships and claims come along)
REPORT_BATCH, REPORT_BATCH_ENTITIES = 500, 5000


def _batches(rows: list[Record]) -> list[list[int]]:
    """Community ids of ``rows`` (with ``id``, ``size``) in batches within both limits."""
    out: list[list[int]] = [[]]
    entities = 0
    for r in rows:
        if out[-1] and (len(out[-1]) >= REPORT_BATCH
                        or entities + (r["size"] or 0) > REPORT_BATCH_ENTITIES):
            out.append([])
            entities = 0
        out[-1].append(r["id"])
        entities += r["size"] or 0
    return [b for b in out if b]


ENTITY_HEADER = ["id", "entity", "description", "degree"]
CLAIM_HEADER = ["id", "entity", "type", "status", "description"]
REL_HEADER = ["id", "source", "target", "description", "combined_degree"]


def local_context(elements: Record, max_tokens: int, enc: str) -> tuple[str, bool]:
    """Records ranked by combined degree until ``max_tokens``; returns (context, overflowed).

    Relationships go first, highest combined degree of their endpoints first, each bringing
    its endpoint entities and their claims; then the entities without any, by degree.
    Token cost is counted per record line, so building a context is linear in its size.
    """
    entities = {e["key"]: e for e in elements["entities"]}
    claims_by: dict[str, list[Record]] = {}
    # in a fixed order: the graph returns them in its storage order, which the concurrent
    # writes of extraction change from run to run; a prompt that changes misses the response
    # cache, which a rebuilt index (and `ingest --estimate`) counts on
    for c in sorted(elements["claims"], key=lambda c: (
            str(c["description"] or ""), str(c["type"] or ""), str(c["status"] or ""))):
        claims_by.setdefault(c["key"], []).append(c)
    rels = sorted(elements["relationships"],
                  key=lambda r: (-(r["combined_degree"] or 0), r["source_key"], r["target_key"]))
    ent_rows: list[list[Any]] = []
    rel_rows: list[list[Any]] = []
    claim_rows: list[list[Any]] = []
    seen: set[str] = set()
    used = sum(count(csv_table(t, h, []), enc) for t, h in
               (("Entities", ENTITY_HEADER), ("Claims", CLAIM_HEADER),
                ("Relationships", REL_HEADER)))

    def entity_rows(key: str) -> tuple[list[list[Any]], list[list[Any]]]:
        if key in seen or key not in entities:
            return [], []
        e = entities[key]
        rows = [[None, e["name"], e["description"] or "", e["degree"] or 0]]
        return rows, [[None, c["entity"], c["type"], c["status"], c["description"]]
                      for c in claims_by.get(key, [])]

    steps: list[tuple[str, Any]] = [("rel", r) for r in rels]
    steps += [("ent", e["key"]) for e in sorted(entities.values(),
                                                key=lambda e: (-(e["degree"] or 0), e["key"]))]
    overflow = False
    for kind, item in steps:
        keys = [item["source_key"], item["target_key"]] if kind == "rel" else [item]
        new_e: list[list[Any]] = []
        new_c: list[list[Any]] = []
        for key in dict.fromkeys(keys):
            e_rows, c_rows = entity_rows(key)
            new_e += e_rows
            new_c += c_rows
        new_r = ([[None, item["source"], item["target"], item["description"] or "",
                   item["combined_degree"] or 0]] if kind == "rel" else [])
        cost = sum(count(csv_line(r[1:]), enc) + 2 for r in new_e + new_c + new_r)
        if used + cost > max_tokens:
            overflow = True
            break
        used += cost
        seen.update(k for k in keys if k in entities)
        for rows, new in ((ent_rows, new_e), (claim_rows, new_c), (rel_rows, new_r)):
            for r in new:
                r[0] = len(rows)
                rows.append(r)
    parts = [csv_table("Entities", ENTITY_HEADER, ent_rows)]
    if claim_rows:
        parts.append(csv_table("Claims", CLAIM_HEADER, claim_rows))
    if rel_rows:
        parts.append(csv_table("Relationships", REL_HEADER, rel_rows))
    return "\n".join(parts), overflow


def mixed_context(elements: Record, children: list[Record],
                  max_tokens: int, enc: str) -> str:
    """Substitute sub-community reports (biggest first) for their raw records until it fits."""
    ctx, overflow = local_context(elements, max_tokens, enc)
    reported = [c for c in children if c.get("full_content")]
    if not overflow or not reported:
        return ctx
    for i in range(1, len(reported) + 1):
        used = reported[:i]
        report_rows = [[c["id"], c["title"] or "", c["full_content"]] for c in used]
        reports = csv_table("Reports", ["id", "title", "content"], report_rows)
        covered = {k for c in used for k in c["members"]}
        rest = {
            "entities": [e for e in elements["entities"] if e["key"] not in covered],
            "relationships": [r for r in elements["relationships"]
                              if r["source_key"] not in covered and r["target_key"] not in covered],
            "claims": [c for c in elements["claims"] if c["key"] not in covered],
        }
        budget = max_tokens - count(reports, enc)
        if budget <= 0:
            return truncate(reports, max_tokens, enc)
        local, overflow = local_context(rest, budget, enc)
        if not overflow:
            return reports + "\n" + local
    return truncate(reports, max_tokens, enc)


async def write_report(llm: LLM, settings: Settings, context: str) -> CommunityReport:
    """One community report from a community's context (Edge et al. §3.1.4): one LLM call,
    stage ``report``, at most ``REPORT_MAX_TOKENS`` completion tokens; the LLM layer retries an
    unusable reply (a nudge, or more room when truncated), then raises LLMParseError."""
    msgs = render("index/community_report", context=context)
    return await llm.structured(msgs, CommunityReport, stage=Stage.REPORT,
                                max_tokens=settings.index.report_max_tokens)


async def build_reports(graph: Graph, llm: LLM, settings: Settings, scope: str,
                        progress: Progress = no_progress,
                        chatter: Counter[str] | None = None) -> ReportCounts:
    """Reports for every community of ``scope`` still without one, deepest level first.

    Each report is paid once (``index/report_reuse``): a community whose members and
    descriptions were reported already (another level, another scope, the hierarchy before
    this one) reuses that report; one of at most ``index.report_compose_max_entities``
    entities gets a report composed from its descriptions; only the others cost an LLM call.
    A report that fails after the LLM layer's retries is recorded (``report_status:
    'failed'``, ``report_error`` starting with the reason) and never stops the others; the
    next run retries it. A community with a sub-community whose report failed waits (its
    report would be written from an incomplete context): recorded as failed with the reason
    "waiting", retried with it. Returns the counts (`ReportCounts`: LLM reports, reused,
    composed, waiting, and the ``[Data: ...]`` ids in report text that were not in its
    context, removed, as ``invalid_citations``; findings the context does not hold, dropped, as
    ``unsupported_findings``: llm/grounding.py) and each failure (item ``report <id>``).
    LLM reports whose text fields needed chatter stripping are counted in ``chatter["report"]``.
    """
    pending = graph.run("index/pending_reports", scope=scope)
    task = "community reports"
    progress(task, 0, len(pending))
    done = ReportCounts()
    levels = sorted({r["level"] for r in pending}, reverse=True)
    enc, budget = settings.encoding, settings.index.report_context_tokens
    # a topic subgraph's titles are what its topics add to the bill: counted apart
    title_stage = Stage.REPORT_TITLE if scope == GENERAL else Stage.TOPIC_REPORT_TITLE

    async def one(cid: int, elements: Record, children: list[Record], key: str,
                  found: list[Record]) -> Record:
        reused = reuse_props(cid, found)
        if reused is not None:
            done.reused += 1
            progress(task, 1, None)
            return {"id": cid, "props": {**reused, "report_key": key}}
        if settings.llm.small:  # the sources' sentences, a title the model writes
            return await from_evidence(cid, elements, key, evidence[cid])
        if len(elements["entities"]) <= settings.index.report_compose_max_entities:
            done.composed += 1
            progress(task, 1, None)
            composed = composed_props(elements, settings.index.report_max_tokens, enc)
            done.left_out += composed["report_left_out"]
            return {"id": cid, "props": {**composed, "reused_from": None,
                                         "report_key": report_key(elements, "composed")}}
        if any(c["status"] != "ok" for c in children):
            # recorded, not left blank: every community has a report or a reason it has none
            done.waiting += 1
            progress(task, 1, None)
            return {"id": cid, "props": {"report_status": "failed", "report_error": (
                "waiting: a sub-community's report failed; retried with it by the next run")}}
        context = mixed_context(elements, children, budget, enc)
        try:
            report, changed = (await write_report(llm, settings, context)).without_chatter()
            if changed and chatter is not None:
                chatter["report"] += 1
            # a finding's "[Data: Entities (7)]" is read by map-reduce later: held to the
            # context's ids here, the invalid ones counted and kept on the community
            report, invalid = report.checked_citations(context)
            done.invalid_citations += len(invalid)
            # a finding its context does not hold is the model's invention: not stored
            report, unsupported = report.grounded(FindingCheck(context))
            done.unsupported_findings += len(unsupported)
            props = {**report_props(report), "report_key": key, "invalid_citations": invalid,
                     "unsupported_findings": unsupported}
            done.ok += 1
        except LLMError as err:
            props = {"report_status": "failed", "report_error": error_text(err)}
            done.failures.append(Failure.of(f"report {cid}", err))
        progress(task, 1, None)
        return {"id": cid, "props": props}

    async def from_evidence(cid: int, elements: Record, key: str, ev: Record) -> Record:
        members = {e["key"]: e for e in elements["entities"]}
        findings = pick(members, ev, settings.index.report_max_tokens, enc)
        title = names_title(elements["entities"])
        if len(members) > settings.index.report_compose_max_entities and findings:
            got = await titled(llm, findings, title_stage)
            done.titled += 1
            if got is None:
                done.titles_refused += 1
            title = got or title
        used = sum(len(ss) for _, ss in findings)
        props = evidence_props(elements["entities"], findings, title,
                               len(ev["sentences"]) - used)
        done.composed += 1
        done.left_out += props["report_left_out"]
        progress(task, 1, None)
        return {"id": cid, "props": {**props, "reused_from": None, "report_key": key}}

    for level in levels:
        # two queries per batch of communities (few round trips), not per level: at 16x the
        # BBC sample that outgrew Neo4j's transaction memory; each batch stored when done
        for ids in _batches([r for r in pending if r["level"] == level]):
            # over the transaction memory anyway (big descriptions): read in halves
            elements = {r["id"]: r for r in graph.run_paged("index/community_elements",
                                                            "ids", ids)}
            children: dict[int, list[Record]] = {i: [] for i in ids}
            for row in graph.run_paged("index/community_children", "ids", ids):
                children[row["parent"]].append(row)
            evidence = ({r["id"]: r for r in graph.run_paged("index/community_evidence", "ids",
                                                              ids)}
                        if settings.llm.small else {})
            how = f"evidence {settings.llm.model}" if settings.llm.small else settings.llm.model
            # after the deeper levels were stored: an unsplit community reuses its child's
            keys = {i: report_key(elements[i], how) for i in ids}
            found = reusable(graph, sorted(set(keys.values())))
            rows = await asyncio.gather(*(one(i, elements[i], children[i], keys[i],
                                              found.get(keys[i], [])) for i in ids))
            graph.write("index/set_reports", rows)
    if not done.failed and not done.waiting:
        graph.run_batched("index/prune_archive", scopes=[scope])
    return done
