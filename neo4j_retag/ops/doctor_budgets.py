"""`doctor`'s window checks: the context the LLM server really runs with (llama.cpp's
``GET /props``), LLM_CTX against it, and every token budget against it - each prompt's frame,
its budget and its completion must fit the window, or the server refuses (or, some, silently
cuts) the prompt."""

from __future__ import annotations

from dataclasses import dataclass

from .. import tokens
from ..config import Settings
from ..llm.endpoint import WINDOW_KEY, Capabilities, served_ctx
from ..prompts import sections


@dataclass(frozen=True)
class Budget:
    setting: str  # the budget setting that sizes the prompt's data
    prompt: str  # the prompt it fills
    completion: str  # the setting that caps the completion
    parts: tuple[str, ...] = ()  # fragments the prompt takes in (the claims instructions)


BUDGETS = (
    Budget("CHUNK_SIZE", "index/extract_graph", "LLM_MAX_TOKENS",
           ("index/extract_claims", "index/extract_claims_shape")),
    Budget("REPORT_CONTEXT_TOKENS", "index/community_report", "REPORT_MAX_TOKENS"),
    Budget("MAP_CONTEXT_TOKENS", "query/map", "LLM_MAX_TOKENS"),
    Budget("REDUCE_CONTEXT_TOKENS", "query/reduce", "LLM_MAX_TOKENS"),
)


def _value(settings: Settings, name: str) -> int:
    return {"CHUNK_SIZE": settings.index.chunk_size,
            "REPORT_CONTEXT_TOKENS": settings.index.report_context_tokens,
            "REPORT_MAX_TOKENS": settings.index.report_max_tokens,
            "MAP_CONTEXT_TOKENS": settings.query.map_context_tokens,
            "REDUCE_CONTEXT_TOKENS": settings.query.reduce_context_tokens,
            "LLM_MAX_TOKENS": settings.llm.max_tokens}[name]


def window(settings: Settings) -> tuple[int | None, str]:
    """(the LLM's window in tokens, where it was read): the server's own n_ctx, else the
    window learnt from a refusal, else LLM_CTX for the local server; (None, why) when
    nothing tells it."""
    if (n := served_ctx(settings.llm.endpoint)) is not None:
        return n, "the server's n_ctx"
    if learnt := Capabilities(settings).get(WINDOW_KEY):
        return learnt, "learnt from the endpoint's refusal"
    if settings.llm.local:
        return settings.services.llm_ctx, "LLM_CTX (the server did not say)"
    return None, "the endpoint does not tell its window"


def over_budgets(settings: Settings, ctx: int) -> tuple[list[str], list[str]]:
    """(every budget as "SETTING: frame + budget + completion = N of ctx", those over)."""
    lines, over = [], []
    for b in BUDGETS:
        frame = tokens.count("\n".join(t for name in (b.prompt, *b.parts)
                                       for _, t in sections(name)), settings.encoding)
        data, completion = _value(settings, b.setting), _value(settings, b.completion)
        need = frame + data + completion
        line = (f"{b.setting} {data:,} + {b.completion} {completion:,} + the prompt's "
                f"~{frame:,} = {need:,}")
        lines.append(line)
        if need > ctx:
            over.append(f"{line} > {ctx:,}")
    return lines, over
