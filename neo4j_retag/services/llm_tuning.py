"""How the local model server shares the machine and saves work, as each server's flags: the
threads' polling (LLM_POLL), the prompt's KV cache (LLM_CACHE_PROMPT, LLM_CACHE_REUSE) and
draftless speculative decoding (LLM_SPECULATIVE, LLM_SPEC_NGRAM, LLM_DRAFT_MAX); and the
threads a running server was started with."""

from __future__ import annotations

from pathlib import Path

from neo4j_retag.config import Settings


def speculative(settings: Settings) -> str:
    """LLM_SPECULATIVE, ``auto`` resolved: n-gram drafts for a model that writes (its
    descriptions copy the text's sentences), none for one that selects (names, types and
    sentence numbers: too little copied to pay for the drafts it checks)."""
    kind = settings.services.llm_speculative
    if kind != "auto":
        return kind
    return "none" if settings.llm.small else "ngram-simple"


def xllama(settings: Settings) -> list[str]:
    """``services.xllama``'s options."""
    local = settings.services
    return ["--poll", str(local.llm_poll),
            "--cache-prompt" if local.llm_cache_prompt else "--no-cache-prompt",
            "--cache-reuse", str(local.llm_cache_reuse),
            "--spec-type", speculative(settings), "--spec-ngram-n", str(local.llm_spec_ngram),
            "--draft-max", str(local.llm_draft_max)]


def llama_server(settings: Settings) -> list[str]:
    """llama-server's flags; none for speculation that is off, so a build older than the
    n-gram drafts still starts."""
    local = settings.services
    flags = ["--poll", str(local.llm_poll),
             "--cache-prompt" if local.llm_cache_prompt else "--no-cache-prompt",
             "--cache-reuse", str(local.llm_cache_reuse)]
    if (kind := speculative(settings)) != "none":
        flags += ["--spec-type", kind,
                  "--spec-ngram-size-n", str(local.llm_spec_ngram),
                  "--spec-ngram-size-m", str(local.llm_draft_max),
                  "--draft-max", str(local.llm_draft_max)]
    return flags


def python_server(settings: Settings) -> list[str]:
    """llama-cpp-python's server: its one draftless speculation (the prompt's n-grams, for any
    kind but none); it reuses the prompt prefix of its one context by itself."""
    if speculative(settings) == "none":
        return []
    return ["--draft_model", "prompt-lookup-decoding",
            "--draft_model_num_pred_tokens", str(settings.services.llm_draft_max)]


def served_threads(pid: int | None) -> int | None:
    """The threads a running server was started with (its command line, Linux /proc), or
    None."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return None
    for flag in ("--threads", "--n_threads"):
        if flag in args[:-1]:
            value = args[args.index(flag) + 1]
            return int(value) if value.isdigit() else None
    return None
