"""The bill before the run: `ingest PATH --estimate`.

Reads and chunks the input exactly as `ingest` does, calls no LLM, writes nothing, and
estimates the LLM calls and prompt / completion tokens of each stage. Extraction prompts are
rendered and counted exactly; what the model writes, and how many summaries, reports and
topic calls the graph will need, follow per-text-unit ratios measured on real runs
(index/estimate_profile.py: a profile per kind of model, calibrated by the last ingest's
actual figures; docs/benchmarks.md "What an index costs"). Topics are modelled by their
structure (index/estimate_topics.py).
`ingest` stores its estimate in the graph and `stats` shows it beside what the run spent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import tokens
from ..config import Settings
from ..db import Graph
from ..llm import Usage
from ..model import LLMCost
from ..prompts import render
from ..stages import Stage, group_of
from .documents import Document, check_inputs, read_path
from .estimate_cache import cached_extractions
from .estimate_embed import embed_stage, embed_uncached
from .estimate_profile import FIGURES, Profile, calibration, profile_for
from .estimate_topics import topics_cost
from .extract import messages
from .extract_evidence import messages as select_messages
from .lazy_index import planned_method
from .sentences import unit_sentences

# reasoning models: OpenAI's o1/o3/o4 and gpt-5, DeepSeek's R1 (`deepseek-reasoner`, its
# distills), Qwen's QwQ; behind any provider prefix ("openai/o3-mini",
# "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", Groq's "qwen-qwq-32b") or with a tag ("qwq:32b")
REASONING = re.compile(r"^(?:[\w.-]+/)*(?:o1|o3|o4|gpt-5|deepseek-reasoner|deepseek-r1|"
                       r"(?:qwen-)?qwq)(?:\b|[-_.:])", re.I)


@dataclass
class Estimate:
    documents: int = 0
    documents_known: int = 0  # already in the graph: nothing to pay
    text_units: int = 0
    text_unit_tokens: int = 0
    profile: str = "remote"
    model: str = ""
    calibrated: bool = False  # LLM stages scaled by the last ingest's actual / estimate
    upgrade: bool = False  # --full on a lazy index: its text units are extracted now
    cached_units: int = 0  # new text units whose extraction reply the response cache holds
    notes: list[str] = field(default_factory=list)  # what the figures leave out
    stages: dict[str, LLMCost] = field(default_factory=dict)
    raw: dict[str, LLMCost] = field(default_factory=dict)  # the profile's figures alone

    @property
    def total(self) -> LLMCost:
        return Usage(stages=self.stages).total

    def as_dict(self, raw: bool = False) -> dict[str, dict[str, int]]:
        return {k: {"calls": v.calls, "prompt_tokens": v.prompt_tokens,
                    "completion_tokens": v.completion_tokens}
                for k, v in (self.raw if raw else self.stages).items()}

    def price(self, per_m_input: float | None, per_m_output: float | None) -> float | None:
        """The chat calls' price (the embed stage's tokens are another model's, priced
        apart by its provider: not in it)."""
        if per_m_input is None or per_m_output is None:
            return None
        t = Usage(stages={k: v for k, v in self.stages.items()
                          if not Stage(k).embeddings}).total
        return (t.prompt_tokens * per_m_input + t.completion_tokens * per_m_output) / 1e6


def _stage(calls: float, prompt: float, completion: float) -> LLMCost:
    return LLMCost(calls=round(calls), prompt_tokens=round(prompt),
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
    check_inputs(paths)
    docs = read_documents(paths, text_field)
    known: set[str] = set()
    indexed_units = 0  # the text units of the graph: topic mining reads them all
    lazy, upgrade = settings.index.method == "lazy", False
    if graph is not None:
        plan = planned_method(graph, settings)
        lazy, upgrade = plan == "lazy", plan == "upgrade"
        # an upgrade (--full on a lazy graph) extracts the text units already there too
        known = set() if upgrade else {
            r["id"] for r in graph.run("index/existing_documents", ids=[d.id for d in docs])}
        indexed_units = graph.run("index/chunk_count")[0]["n"]
    p = profile_for(settings)
    est = Estimate(documents=len(docs), documents_known=len(known), profile=p.name,
                   model=settings.llm.model, upgrade=upgrade)
    enc = settings.encoding
    claims = settings.index.extract_claims and settings.index.claims_call == "combined"
    cap = settings.llm.max_tokens * p.completion_cap
    ext_prompt = ext_completion = glean_prompt = 0.0
    glean_tpl = tokens.count(render("index/extract_glean")[0]["content"], enc)
    texts: list[str] = []
    sizes: list[int] = []  # each text unit's tokens
    for doc in docs:
        if doc.id in known:
            continue
        for text in tokens.split(doc.text, settings.index.chunk_size,
                                 settings.index.chunk_overlap, enc):
            n = tokens.count(text, enc)
            texts.append(text)
            sizes.append(n)
            est.text_units += 1
            est.text_unit_tokens += n
            msgs = (select_messages(settings.index.entity_types, unit_sentences("u", text),
                                    settings.index.extract_claims)
                    if p.selects else messages(settings, text, claims))
            prompt = p.prompt_token_factor * sum(tokens.count(m["content"], enc) + 4
                                                 for m in msgs)
            completion = min(cap, p.extract_completion_per_token * n)
            ext_prompt += prompt
            ext_completion += completion
            glean_prompt += (prompt + completion * p.glean_found_share + glean_tpl) \
                * p.glean_prompt_factor
    u = est.text_units
    if not u or lazy:
        # the lazy index calls no LLM (reports are paid when a query needs them); its text
        # units are embedded all the same
        _put(est.raw, embed_stage(settings, p, sizes, lazy=True))
        est.stages = dict(est.raw)
        _put(est.stages, embed_uncached(settings, p, texts, sizes, 1.0, {}, lazy=True))
        return est
    tries = 1 + p.extract_retry
    est.raw[Stage.EXTRACT] = _stage(u * tries, ext_prompt * tries, ext_completion * tries)
    if settings.index.glean:
        rounds = 1 + p.glean_continue * (settings.index.glean - 1)
        est.raw[Stage.GLEAN] = _stage(u * rounds, glean_prompt * rounds,
                                      ext_completion * p.glean_completion_share * rounds)
    if settings.index.extract_claims and settings.index.claims_call == "separate":
        est.raw[Stage.CLAIMS] = _stage(u, ext_prompt, ext_completion / 2)
    reports = u * p.reports_per_unit
    if p.selects:  # descriptions are the evidence; a composed report's title is one call
        est.raw[Stage.REPORT] = _stage(reports, reports * p.title_prompt,
                                       reports * p.title_completion)
    else:
        est.raw[Stage.SUMMARIZE] = _stage(u * p.summaries_per_unit,
                                          u * p.summaries_per_unit * p.summary_prompt,
                                          u * p.summaries_per_unit * p.summary_completion)
        est.raw[Stage.REPORT] = _stage(
            reports, reports * p.report_prompt_share * settings.index.report_context_tokens,
            reports * min(p.report_completion, settings.index.report_max_tokens))
    if topics:
        est.raw[Stage.TOPICS] = topics_cost(settings, p, u, p.prompt_token_factor *
                                            est.text_unit_tokens / u, indexed_units)
    _put(est.raw, embed_stage(settings, p, sizes))
    factors = calibration(graph, p.name, settings.llm.model)
    # said of the LLM stages: a lazy ingest before this one calibrates its embedding only
    est.calibrated = any(k in est.raw and k != Stage.EMBED for k in factors)
    est.stages = {k: _scaled(v, factors.get(k, {})) for k, v in est.raw.items()}
    _cache_and_reasoning(est, settings, p, texts, sizes, factors)
    return est


def _put(stages: dict[str, LLMCost], embed: LLMCost | None) -> None:
    if embed is not None:
        stages[Stage.EMBED] = embed


def _cache_and_reasoning(est: Estimate, settings: Settings, p: Profile, texts: list[str],
                         sizes: list[int], factors: dict[str, dict[str, float]]) -> None:
    """The LLM stages scaled to the text units the response cache does not answer (the
    later stages built from their replies cached in the same share: their prompts come out
    the same), the embed stage to the vectors it does not hold, and a note for a reasoning
    model, whose reasoning tokens are billed beyond the figures."""
    est.cached_units = cached_extractions(settings, texts)
    paid = 1 - est.cached_units / len(texts)
    if est.cached_units:
        est.stages = {k: v if k == Stage.EMBED else _stage(
            v.calls * paid, v.prompt_tokens * paid, v.completion_tokens * paid)
            for k, v in est.stages.items()}
    if Stage.EMBED in est.stages:
        _put(est.stages, embed_uncached(settings, p, texts, sizes, paid,
                                        factors.get(Stage.EMBED, {})))
    if REASONING.match(settings.llm.model):
        est.notes.append(
            f"OPENAI_MODEL {settings.llm.model} is a reasoning model: it writes reasoning "
            "tokens before each answer (hidden, or as <think> text we strip), billed as "
            "completion tokens beyond the ones counted here (often several times more); the "
            "figures and the price are a lower bound")


def _scaled(s: LLMCost, f: dict[str, float]) -> LLMCost:
    return _stage(*(getattr(s, k) * f.get(k, 1.0) for k in FIGURES))


def grouped(usage: Usage) -> dict[str, dict[str, int]]:
    """An ingest's usage by estimate stage (``calls`` are the calls sent: cache hits are free),
    each stage under its ``Stage.group`` (topic mining's global queries, topic list, corpus
    description and assignment are ``topics``)."""
    out: dict[str, dict[str, int]] = {}
    for name, s in usage.stages.items():
        g = out.setdefault(group_of(name),
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
    raw = est.as_dict(raw=True)
    graph.run("index/set_estimate", rows=[
        {"stage": k, **v, **{f"raw_{f}": raw[k][f] for f in FIGURES}}
        for k, v in est.as_dict().items()],
              meta={"text_units": est.text_units, "profile": est.profile, "model": est.model})
