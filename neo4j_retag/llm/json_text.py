"""Where the JSON in a model's reply is: the value a reply opens with (a JSON object, array or
Python dict, alone or before prose), where a bracketed value closes, and whether it was cut
off. Plain string work: the reply checks (``llm.reply``) decide what each finding means."""

from __future__ import annotations

import ast
import json
import re

import json_repair

_KEY = re.compile(r"""["']\s*:""")  # a key: what an object or dict with a defect still has


def leading_value(body: str) -> str:
    """The JSON value (or Python dict or list) ``body`` opens with, as text, when it is a
    non-empty one: the whole body, or its first balanced value when prose follows. "" for
    none: "[Data: Reports (1)] ..." is a citation, not a JSON array."""
    end = _value_end(body)
    head = body[:end] if end else body
    if head != body and head[0] != "{":
        return ""  # "[1, 2] are the berths": only an object before prose is a template
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(head)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return head if isinstance(value, dict | list) and value else ""
    if head[0] == "{" and _KEY.search(head) and not unclosed(head) and head[-1] == "}":
        value = json_repair.loads(head)  # a harmless defect: a trailing comma
        return head if isinstance(value, dict) and value else ""
    return ""


def _value_end(text: str) -> int:
    """Where the first bracketed value of ``text`` closes (strings in either quote skipped),
    or 0 when it never does."""
    depth, quote, esc = 0, "", False
    for i, ch in enumerate(text):
        if quote:
            esc, quote = (False, quote) if esc else (ch == "\\", "" if ch == quote else quote)
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return 0


def unclosed(text: str) -> bool:
    """True when the first JSON value in ``text`` ends inside a string or an open bracket:
    the reply was cut off (closing it would invent an ending)."""
    depth, in_str, esc, started = 0, False, False, False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
            started = True
        elif ch in "}]":
            depth -= 1
            if started and depth <= 0:
                return False
    return in_str or depth > 0
