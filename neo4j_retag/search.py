"""Global search: map-reduce over community reports (Edge et al. 2024 §3.1.6).

Map: the reports, shuffled with a fixed seed, packed into batches within a token budget; each
batch gives key points with a 0-100 helpfulness score (score-0 points dropped). Reduce: the
points, best first, fill one context, and the LLM writes the final answer citing the reports.
"""

from __future__ import annotations

import asyncio
import functools
import random
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, Field, create_model, field_validator

from .config import Settings
from .llm import LLM, LLMError, LLMParseError
from .prompts import csv_table, render
from .tokens import count, truncate

NO_ANSWER = "I am sorry but I am unable to answer this question given the provided data."
CITATION = re.compile(r"\[Data:\s*Reports\s*\(([^)]*)\)\]", re.I)


class MapPoint(BaseModel):
    description: str
    score: float = 0
    reports: list[int] = []

    @field_validator("score", mode="before")
    @classmethod
    def _score(cls, v: Any) -> float:
        try:
            return min(100.0, max(0.0, float(v)))
        except (TypeError, ValueError):
            return 0.0

    @field_validator("reports", mode="before")
    @classmethod
    def _reports(cls, v: Any) -> list[int]:
        items = v if isinstance(v, list) else re.findall(r"\d+", str(v or ""))
        out = []
        for x in items:
            try:
                out.append(int(x))
            except (TypeError, ValueError):
                continue
        return out


class MapResult(BaseModel):
    # minItems in the schema only: a grammar-constrained small model otherwise takes the
    # cheapest path, "[]"; GraphRAG's map always answers, with score 0 for "I don't know"
    points: list[MapPoint] = Field([], json_schema_extra={"minItems": 1})


@functools.lru_cache(maxsize=256)
def map_model(ids: tuple[int, ...]) -> type[MapResult]:
    """MapResult whose schema lets ``reports`` name only the ids of this batch (at least one):
    under grammar-constrained decoding every point then cites real reports. Parsing stays
    lenient; ids outside the batch are dropped afterwards."""
    point = create_model("MapPoint", __base__=MapPoint, reports=(list[int], Field(
        [], json_schema_extra={"items": {"type": "integer", "enum": list(ids)},
                               "minItems": 1})))
    return create_model("MapResult", __base__=MapResult, points=(list[point], Field(  # type: ignore[valid-type]
        [], json_schema_extra={"minItems": 1})))


@dataclass
class Trace:
    """What happened, for `ask` output and benchmarks (ReTAG Tables 5-7 measure these)."""

    method: str = "global"
    scope: str = "general"
    topic: str | None = None
    keywords: list[str] = field(default_factory=list)
    level: int = 0
    reports_retrieved: int = 0
    map_batches: int = 0
    map_parse_failures: int = 0
    map_failures: int = 0
    points_total: int = 0
    points_zero: int = 0
    points_kept: int = 0
    points_in_reduce: int = 0
    invalid_citations: list[str] = field(default_factory=list)
    refinement: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Answer:
    answer: str
    citations: list[dict[str, Any]]
    trace: Trace

    def as_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "citations": self.citations, "trace": self.trace.as_dict()}


async def complete_or_note(llm: LLM, messages: list[dict[str, str]], stage: str,
                           trace: Trace) -> str:
    """The completion's text, or "" with the failure noted in the trace (never raises)."""
    try:
        return str(await llm.complete(messages, stage=stage)).strip()
    except LLMError as err:
        trace.notes.append(f"{stage} failed: {err}")
        return ""


def _report_table(reports: list[dict[str, Any]]) -> str:
    return csv_table("Reports", ["id", "title", "content"],
                     [[r["id"], r["title"] or "", r["full_content"] or ""] for r in reports])


def batches(reports: list[dict[str, Any]], max_tokens: int, seed: int,
            enc: str) -> list[list[dict[str, Any]]]:
    """Shuffled reports packed into batches whose table fits ``max_tokens`` (one oversized
    report is truncated to fit alone)."""
    items = list(reports)
    random.Random(seed).shuffle(items)
    out: list[list[dict[str, Any]]] = []
    cur: list[dict[str, Any]] = []
    empty = count(_report_table([]), enc)
    used = empty
    for r in items:
        n = count(_report_table([r]), enc) - empty
        if n > max_tokens - used and not cur:
            r = {**r, "full_content": truncate(r["full_content"] or "", max_tokens // 2, enc)}
            n = count(_report_table([r]), enc)
        if cur and used + n > max_tokens:
            out.append(cur)
            cur, used = [], empty
        cur.append(r)
        used += n
    if cur:
        out.append(cur)
    return out


async def map_reduce(llm: LLM, settings: Settings, question: str, reports: list[dict[str, Any]],
                     trace: Trace, response_type: str = "multiple paragraphs") -> Answer:
    """Answer ``question`` from ``reports`` (dicts with id, title, full_content).

    Never raises for bad model output: parse failures are counted in ``trace`` (distinct from
    score-0 points) and an answer that cannot be given says why in ``trace.notes``.
    """
    t0 = time.perf_counter()
    by_id = {int(r["id"]): r for r in reports}
    trace.reports_retrieved = len(reports)
    if not reports:
        trace.notes.append("no community reports to answer from")
        return Answer(NO_ANSWER, [], trace)
    groups = batches(reports, settings.map_context_tokens, settings.shuffle_seed, settings.encoding)
    trace.map_batches = len(groups)

    async def one(batch: list[dict[str, Any]]) -> list[MapPoint]:
        msgs = render(settings.prompts_dir, "map", context=_report_table(batch), question=question)
        ids = tuple(sorted(int(r["id"]) for r in batch))
        in_batch = set(ids)
        try:
            result = await llm.structured(msgs, map_model(ids), stage="map")
        except LLMParseError:
            trace.map_parse_failures += 1
            return []
        except LLMError:
            trace.map_failures += 1
            return []
        for p in result.points:
            cited = p.reports or [int(x) for m in CITATION.findall(p.description)
                                  for x in re.findall(r"\d+", m)]
            # only ids that were in this batch count; a point citing none stays unattributed
            p.reports = [i for i in dict.fromkeys(cited) if i in in_batch]
        return result.points

    point_lists = await asyncio.gather(*(one(b) for b in groups))
    trace.seconds["map"] = round(time.perf_counter() - t0, 3)
    points = [p for pl in point_lists for p in pl]
    trace.points_total = len(points)
    kept = sorted((p for p in points if p.score > 0), key=lambda p: -p.score)
    trace.points_zero = len(points) - len(kept)
    trace.points_kept = len(kept)
    if not kept:
        if trace.map_parse_failures + trace.map_failures == len(groups):
            trace.notes.append("every map batch failed to parse or errored")
        else:
            trace.notes.append("no map point scored above 0: the reports do not answer this")
        return Answer(NO_ANSWER, [], trace)

    t1 = time.perf_counter()
    parts: list[str] = []
    used_points: list[MapPoint] = []
    budget = settings.reduce_context_tokens
    for i, p in enumerate(kept):
        text = f"----Analyst {i + 1}----\nImportance Score: {p.score:g}\n{p.description}\n"
        if count("".join(parts) + text, settings.encoding) > budget:
            break
        parts.append(text)
        used_points.append(p)
    trace.points_in_reduce = len(used_points)
    msgs = render(settings.prompts_dir, "reduce", context="\n".join(parts), question=question,
                  response_type=response_type)
    text = await complete_or_note(llm, msgs, "reduce", trace)
    trace.seconds["reduce"] = round(time.perf_counter() - t1, 3)
    if not text:
        text = "\n\n".join(p.description for p in used_points)
        trace.notes.append("the reduce step gave no text: the best map points are shown")

    # citations: what the answer cites (checked against real report ids) and what supported
    # the points that went into the reduce context
    cited: list[int] = []

    def keep_valid(m: re.Match[str]) -> str:
        valid = []
        for tok in re.split(r"[,\s]+", m.group(1).strip()):
            if tok.isdigit() and int(tok) in by_id:
                valid.append(int(tok))
            elif tok and tok != "+more":
                trace.invalid_citations.append(tok)
        cited.extend(valid)
        return f"[Data: Reports ({', '.join(map(str, valid))})]" if valid else ""

    text = CITATION.sub(keep_valid, text).strip()
    support = [i for p in used_points for i in p.reports]
    ids = list(dict.fromkeys(cited + support))
    if ids and not cited:
        text += f"\n\n[Data: Reports ({', '.join(str(i) for i in ids[:5])})]"
    citations = [{"id": i, "title": by_id[i]["title"], "level": by_id[i].get("level"),
                  "cited_in_answer": i in cited} for i in ids]
    return Answer(text, citations, trace)
