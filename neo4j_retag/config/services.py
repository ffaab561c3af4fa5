"""The services group of `Settings`: the local Neo4j and llama.cpp servers `neo4j-retag neo4j|llm
start` install and run (`services/`), and how the model server shares the machine."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from .groups import Group, env
from .machine import auto_threads, cores, other_work

# llama.cpp's draftless speculative decoding (`--spec-type`), or auto
SpecType = Literal["auto", "none", "ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod",
                   "ngram-cache"]


class ServicesSettings(Group):
    """The local services `neo4j-retag neo4j|llm start` install and run (`services/`)."""

    neo4j_version: str = env("NEO4J_VERSION", "5.26.30", "the Neo4j `neo4j install` fetches "
                             "from Maven Central")
    gds_version: str = env("GDS_VERSION", "2.13.9", "the Graph Data Science plugin it fetches")
    neo4j_data: Path | None = env(
        "NEO4J_DATA", None, "the local Neo4j's data folder; unset = `<home>/neo4j-data`")
    neo4j_heap: str = env("NEO4J_HEAP", "2g", "the local Neo4j's heap")
    neo4j_pagecache: str = env("NEO4J_PAGECACHE", "1g", "the local Neo4j's page cache")
    llm_model: Literal["qwen2.5-coder-1.5b", "smollm2"] = env(
        "LLM_MODEL", "qwen2.5-coder-1.5b", "the embedded model the local server runs: "
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB, `llm fetch`, SHA-256-pinned; `setup.sh` "
        "fetches it) or `smollm2` (SmolLM2-135M-Instruct, the tests' model: fast, writes poor "
        "answers) ([Local models](local-models.md))")
    neo4j_tx_memory: str | None = env(
        "NEO4J_TX_MEMORY", None, "`db.memory.transaction.max` of the local server (a write over "
        "it is split; `doctor` shows the server's value); unset = Neo4j's default")
    llm_model_path: Path | None = env(
        "LLM_MODEL_PATH", None, "any GGUF for the local server (chat template read from the "
        "file), instead of `LLM_MODEL`")
    llm_ctx: int = env("LLM_CTX", 8192, "the local server's context (tokens); the local token "
                       "budgets scale with it", ge=1)
    llm_threads: Annotated[int, Field(ge=1)] | Literal["auto"] = env(
        "LLM_THREADS", "auto", "the local server's CPU threads; `auto` = the cores other work "
        "leaves free when it starts (the load average, or the cores busy then when fewer: 2 on "
        "an idle 2-core machine, 1 beside other work), at least 1; a number = that "
        "([Local models](local-models.md#threads-on-a-busy-machine))")
    llm_nice: int = env(
        "LLM_NICE", 0, "the local server's CPU priority (nice, 0-19): higher (10) gives other "
        "work the cores first, so a busy machine slows the model, not everything", ge=0,
        le=19)
    llm_poll: int = env(
        "LLM_POLL", 50, "how hard the local server's threads spin waiting for each other "
        "(llama.cpp's --poll, 0-100; 0 = they sleep)", ge=0, le=100)
    llm_speculative: SpecType = env(
        "LLM_SPECULATIVE", "auto", "draftless speculative decoding of the local server "
        "(llama.cpp's --spec-type): what the reply copies from the prompt (sentences of the "
        "text) is checked in one batch instead of decoded token by token; none = off; auto = "
        "ngram-simple for a model that writes (LLM_CLASS capable), none for one that selects "
        "(its short replies copy too little to pay for the drafts) "
        "([Local models](local-models.md#faster-decoding-and-the-prompt-cache))")
    llm_spec_ngram: int = env(
        "LLM_SPEC_NGRAM", 4, "speculative decoding: the last tokens looked up in the context "
        "(n-gram size) to find a draft", ge=1)
    llm_draft_max: int = env(
        "LLM_DRAFT_MAX", 8, "speculative decoding: tokens drafted at most per lookup", ge=1)
    llm_cache_prompt: bool = env(
        "LLM_CACHE_PROMPT", True, "the local server keeps the last prompt's KV cache and "
        "evaluates only what differs after their common prefix (not LLM_CACHE, the response "
        "cache)")
    llm_cache_reuse: int = env(
        "LLM_CACHE_REUSE", 0, "the local server also reuses cached chunks of at least this "
        "many tokens that moved (KV shifting: llama.cpp's --cache-reuse; a shifted cache can "
        "change a reply slightly); 0 = the common prefix only", ge=0)
    llm_server: str = env(
        "LLM_SERVER", "auto", "which local server runs the model: `xllamacpp` (llama.cpp's C++ "
        "server from the prebuilt wheel, what `setup.sh` installs), `llama-server` (the same "
        "server compiled into `.venv/bin` by `SETUP_LLM_SERVER=llama-server`), `python` "
        "(llama-cpp-python's, `SETUP_LLM_SERVER=python`), or a path to a `llama-server` "
        "binary; `auto` = llama-server, else xllamacpp, else python, whichever is installed")

    @property
    def threads(self) -> int:
        """LLM_THREADS, or for ``auto`` the cores other work leaves free now (read in half a
        second)."""
        if self.llm_threads == "auto":
            return auto_threads(cores(), other_work())
        return self.llm_threads
