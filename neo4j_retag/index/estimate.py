"""The bill before the run (issue 18): `ingest PATH --estimate`.

Reads and chunks the input exactly as `ingest` does, calls no LLM, writes nothing, and
estimates the LLM calls and prompt / completion tokens of each stage. Extraction prompts are
rendered and counted exactly; what the model writes, and how many summaries, reports and
topic calls the graph will need, follow per-text-unit ratios measured on real runs
(``PROFILES``: an API-like endpoint - fakellm on BBC-200; the embedded model's own ratios are
still to be measured; README "What a user pays"). `ingest` stores its estimate in the graph
and `stats` shows it beside what the run spent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import tokens
from ..config import Settings
from ..db import Graph
from ..llm import StageUsage, Usage
from ..prompts import render
from .documents import Document, read_path
from .extract import messages
from .lazy import planned_method


@dataclass(frozen=True)
class Profile:
    """Measured ratios of one kind of endpoint (per text unit unless named per call)."""

    extract_completion_per_token: float  # extraction completion tokens per text-unit token
    glean_completion_share: float  # a gleaning reply against the extraction reply
    glean_prompt_factor: float  # a gleaning prompt against extraction prompt + reply
    glean_continue: float  # share of text units whose gleaning goes on after a round
    summaries_per_unit: float  # description summaries (entities + relationships)
    summary_prompt: int  # per call
    summary_completion: int
    reports_per_unit: float  # LLM community reports (composed and reused ones are free)
    report_prompt_share: float  # a report prompt's share of REPORT_CONTEXT_TOKENS
    report_completion: int
    topic_calls_per_unit: float  # topic mining (map, reduce, lists) and assignment
    topic_prompt_per_unit: float
    topic_completion_per_unit: float


PROFILES = {
    # fakellm on BBC-200 (600/100, glean 1, claims combined, LLM cache off), an API-like
    # endpoint: 253 text units, 323 LLM reports, 266 topic calls (bench-results/llm_cost-200)
    "remote": Profile(0.741, 0.0103, 1.344, 0.0, 0.0, 250, 30, 1.277, 0.0775, 208,
                      1.051, 870.3, 49.7),
    # meant to be SmolLM2-135M on examples/sample-corpus under the local budgets: not measured
    # yet (the shared local server was too busy), so the remote ratios stand in
    "local": Profile(0.741, 0.0103, 1.344, 0.0, 0.0, 250, 30, 1.277, 0.0775, 208,
                     1.051, 870.3, 49.7),
}


@dataclass
class Estimate:
    documents: int = 0
    documents_known: int = 0  # already in the graph: nothing to pay
    text_units: int = 0
    text_unit_tokens: int = 0
    profile: str = "remote"
    stages: dict[str, StageUsage] = field(default_factory=dict)

    @property
    def total(self) -> StageUsage:
        return Usage(stages=self.stages).total

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {k: {"calls": v.calls, "prompt_tokens": v.prompt_tokens,
                    "completion_tokens": v.completion_tokens}
                for k, v in self.stages.items()}

    def price(self, per_m_input: float | None, per_m_output: float | None) -> float | None:
        if per_m_input is None or per_m_output is None:
            return None
        t = self.total
        return (t.prompt_tokens * per_m_input + t.completion_tokens * per_m_output) / 1e6


def _stage(calls: float, prompt: float, completion: float) -> StageUsage:
    return StageUsage(calls=round(calls), prompt_tokens=round(prompt),
                      completion_tokens=round(completion))


def read_documents(paths: list[Path], text_field: str | None = None) -> list[Document]:
    docs: dict[str, Document] = {}
    for path in paths:
        for item in read_path(path, text_field):
            if isinstance(item, Document):
                docs.setdefault(item.id, item)
    return list(docs.values())


def estimate_ingest(settings: Settings, paths: list[Path], graph: Graph | None = None, *,
                    text_field: str | None = None, topics: bool = True) -> Estimate:
    """Expected LLM usage per stage of `ingest paths` (documents already in ``graph`` cost
    nothing). Raises InputError for a path that does not exist."""
    from ..errors import InputError
    for path in paths:
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
    docs = read_documents(paths, text_field)
    known: set[str] = set()
    indexed_units = 0  # topics are rebuilt over every text unit, the indexed ones too
    lazy = settings.index.method == "lazy"
    if graph is not None:
        plan = planned_method(graph, settings)
        lazy = plan == "lazy"
        # an upgrade (--full on a lazy graph) extracts the text units already there too
        known = set() if plan == "upgrade" else {
            r["id"] for r in graph.run("index/existing_documents", ids=[d.id for d in docs])}
        indexed_units = graph.run("index/chunk_count")[0]["n"]
    p = PROFILES["local" if settings.llm.local else "remote"]
    est = Estimate(documents=len(docs), documents_known=len(known),
                   profile="local" if settings.llm.local else "remote")
    enc = settings.encoding
    claims = settings.index.extract_claims and settings.index.claims_call == "combined"
    ext_prompt = ext_completion = glean_prompt = 0.0
    glean_tpl = tokens.count(render("index/extract_glean")[0]["content"], enc)
    for doc in docs:
        if doc.id in known:
            continue
        for text in tokens.split(doc.text, settings.index.chunk_size,
                                 settings.index.chunk_overlap, enc):
            n = tokens.count(text, enc)
            est.text_units += 1
            est.text_unit_tokens += n
            prompt = sum(tokens.count(m["content"], enc) + 4
                         for m in messages(settings, text, claims))
            completion = min(settings.llm.max_tokens, p.extract_completion_per_token * n)
            ext_prompt += prompt
            ext_completion += completion
            glean_prompt += (prompt + completion + glean_tpl) * p.glean_prompt_factor
    u = est.text_units
    if not u or lazy:
        return est  # the lazy index calls no LLM: reports are paid when a query needs them
    est.stages["extract"] = _stage(u, ext_prompt, ext_completion)
    if settings.index.glean:
        rounds = 1 + p.glean_continue * (settings.index.glean - 1)
        est.stages["glean"] = _stage(u * rounds, glean_prompt * rounds,
                                     ext_completion * p.glean_completion_share * rounds)
    if settings.index.extract_claims and settings.index.claims_call == "separate":
        est.stages["claims"] = _stage(u, ext_prompt, ext_completion / 2)
    est.stages["summarize"] = _stage(u * p.summaries_per_unit,
                                     u * p.summaries_per_unit * p.summary_prompt,
                                     u * p.summaries_per_unit * p.summary_completion)
    reports = u * p.reports_per_unit
    est.stages["report"] = _stage(
        reports, reports * p.report_prompt_share * settings.index.report_context_tokens,
        reports * min(p.report_completion, settings.index.report_max_tokens))
    if topics:
        t = u + indexed_units
        est.stages["topics"] = _stage(t * p.topic_calls_per_unit, t * p.topic_prompt_per_unit,
                                      t * p.topic_completion_per_unit)
    return est


# the usage stages of an ingest, grouped as the estimate names them (topic mining's global
# queries, topic lists, corpus summary and assignment are "topics")
STAGE_GROUPS = {"map": "topics", "reduce": "topics", "topic_assign": "topics",
                "topic_summary": "topics"}


def grouped(usage: Usage) -> dict[str, dict[str, int]]:
    """An ingest's usage by estimate stage (``calls`` are the calls sent: cache hits are free)."""
    out: dict[str, dict[str, int]] = {}
    for name, s in usage.stages.items():
        g = out.setdefault(STAGE_GROUPS.get(name, name),
                           {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
        g["calls"] += s.calls
        g["prompt_tokens"] += s.prompt_tokens
        g["completion_tokens"] += s.completion_tokens
    return out


def record_actual(graph: Graph, usage: Usage) -> None:
    """Store what the ingest spent beside its estimate (`stats`)."""
    graph.run("index/set_estimate_actual",
              rows=[{"stage": k, **v} for k, v in grouped(usage).items()])


def record_estimate(graph: Graph, est: Estimate) -> None:
    """Keep this ingest's estimate in the graph (replacing the previous one) for `stats`."""
    graph.run("index/set_estimate", rows=[{"stage": k, **v} for k, v in est.as_dict().items()],
              meta={"text_units": est.text_units, "profile": est.profile})
