"""Text a client sends must be text: NUL and the other control characters (Unicode category
Cc: C0, DEL, C1) and lone surrogates are refused with one line (400) before anything reads
them, in the URL path, the query string, every string of a JSON body and every MCP argument
(and a JSON integer beyond 64 bits, which Neo4j cannot hold).
A NUL reaching ``pathlib`` or the driver was a 500; the others are never meant (a pasted
terminal escape, a fuzzer). Tab, line feed and carriage return stay allowed in text (a
question may span lines), never in a URL path."""

from __future__ import annotations

import json
import unicodedata
from typing import Any
from urllib.parse import parse_qsl

from ..api.corpus import INT64
from ..errors import InputError

TEXT_OK = frozenset("\t\n\r")
MAX_DEPTH = 32  # JSON nesting; no request here nests beyond 3


def bad_char(value: str, allowed: frozenset[str] = TEXT_OK) -> str | None:
    """The first control character or lone surrogate in ``value`` as ``U+XXXX``, or None."""
    for ch in value:
        if ch not in allowed and unicodedata.category(ch) in ("Cc", "Cs"):
            return f"U+{ord(ch):04X}"
    return None


def check(value: str, where: str, allowed: frozenset[str] = TEXT_OK) -> None:
    """Raise InputError naming ``where`` when ``value`` holds a control character."""
    if (found := bad_char(value, allowed)) is not None:
        raise InputError(f"{where}: control character {found} is not allowed")


def check_json(value: Any, where: str = "", depth: int = 0) -> None:
    """Every key and string in a decoded JSON value (``where``: its dotted path, e.g.
    ``paths.0``), every integer (within 64 bits: a larger one overflowed in the driver) and
    the nesting (at most MAX_DEPTH). Raises InputError."""
    if depth > MAX_DEPTH:
        raise InputError(f"body: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        check(value, where or "body")
    elif isinstance(value, int) and not isinstance(value, bool) and not (
            INT64[0] <= value <= INT64[1]):
        raise InputError(f"{where or 'body'}: {value} is beyond a 64-bit integer")
    elif isinstance(value, dict):
        for k, v in value.items():
            check(str(k), where or "body")
            check_json(v, f"{where}.{k}" if where else str(k), depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_json(v, f"{where}.{i}" if where else str(i), depth + 1)


def check_request(path: str, query: bytes, body: bytes | None) -> None:
    """A request's URL path (no control character at all), its query parameters and its
    body when it is JSON (one that is not is left to the route: 422). Raises InputError."""
    check(path, "path", frozenset())
    try:
        params = parse_qsl(query.decode("latin-1"), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise InputError("query: not UTF-8 text") from None
    for name, value in params:
        check(name, "query")
        check(value, name)
    if body:
        try:
            decoded = json.loads(body, strict=False)  # raw control bytes too, to name them
        except RecursionError:  # the route's own parse would fail the same way: a 500
            raise InputError(f"body: nested deeper than {MAX_DEPTH} levels") from None
        except ValueError:
            return
        check_json(decoded)
