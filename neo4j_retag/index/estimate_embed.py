"""The estimate's embed stage (`ingest --estimate`): the requests (EMBEDDING_BATCH inputs
each, plus the two dimension probes) and input tokens of the text units exactly, of the
entities and reports by the profile's ratios; without the vectors the response cache holds
(a rebuilt index asks for none of them)."""

from __future__ import annotations

from ..config import Settings
from ..model import LLMCost
from .embed import PROBES
from .estimate_cache import cached_vectors
from .estimate_profile import FIGURES, Profile


def embed_stage(settings: Settings, p: Profile, sizes: list[int], lazy: bool = False, *,
                units: int | None = None, share: float = 1.0, probes: int = 2
                ) -> LLMCost | None:
    """The embed stage's requests and input tokens: the text units of ``sizes`` (their
    tokens) exactly, ``probes`` dimension probes, the entities and reports of ``units`` text
    units (default: as many; none for the lazy index) by the profile's ratios, ``share`` of
    them. None with embeddings off or nothing to embed."""
    units = len(sizes) if units is None else units
    if not settings.embedding.enabled or not units:
        return None
    batch = settings.embedding.batch
    entities = 0.0 if lazy else units * p.entities_per_unit * share
    per_unit = (p.reports_per_unit if p.embedded_reports_per_unit is None
                else p.embedded_reports_per_unit)
    reports = 0.0 if lazy else units * per_unit * share
    calls = probes + sum(-(-n // batch) for n in (len(sizes), round(entities), round(reports))
                         if n)
    return LLMCost(calls=round(calls), prompt_tokens=round(
        sum(sizes) + entities * p.entity_text_tokens + reports * p.report_text_tokens))


def embed_uncached(settings: Settings, p: Profile, texts: list[str], sizes: list[int],
                   paid: float, factor: dict[str, float], lazy: bool = False
                   ) -> LLMCost | None:
    """``embed_stage`` without the vectors the response cache holds: the text units' and the
    dimension probes' looked up, the entities' and reports' in the share ``paid`` of the
    extraction (their texts come from its replies); scaled by the calibration ``factor``.
    None when the cache holds none of them (the stage stays as it is)."""
    held = cached_vectors(settings, [*texts, *PROBES])
    if not any(held) and paid == 1:
        return None
    todo = [n for n, h in zip(sizes, held, strict=False) if not h]
    cost = embed_stage(settings, p, todo, lazy, units=len(texts), share=paid,
                       probes=sum(not h for h in held[len(texts):]))
    if cost is None:
        return None
    return LLMCost(**{k: round(getattr(cost, k) * factor.get(k, 1.0)) for k in FIGURES})
