"""What wraps prose or takes its place, in a free-text answer (``checks.shape`` reads it with
the record rules): markup around a body (``<response>...</response>``, tags and elements
holding half of it), one bracketed group holding another (an S-expression, a literal of nested
lists), and text that holds no words - an encoded or hashed blob, code (its characters:
brackets, ``=``, ``;``, ``$``, slashes ...), a link or a path. Judged by what the text is,
never by a list of formats; plain string work, no I/O.
"""

from __future__ import annotations

import re

from ..citations import MARKER
from .verdict import Verdict

MARKUP_SHARE = 0.5  # share of a text's characters in tags and the elements they make
OPAQUE_SHARE = 0.5  # share of its characters in long tokens that are no words: a blob
# code's characters - brackets, "=", ";", "$", "&", "@", slashes, "_" - in a text: at least
# CODE_CHARS of three kinds or more and CODE_SHARE of its characters (stored answers and map
# points reach 0.035 at most; a line of SQL 0.08)
CODE_CHARS, CODE_SHARE = 5, 0.06
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)(?:\s[^<>]*)?(/?)>|<[!?][^<>]*>")
_TOKEN = re.compile(r"\S+")
_CODE = re.compile(r"[()\[\]{}<>=&/\\@_|]")
_CODE_CHAR = re.compile(r"[()\[\]{}<>=;$&/\\@_]")  # a table's "|" is none


def _plain(text: str) -> str:
    return MARKER.sub(" ", text).strip()


def markup(text: str) -> Verdict | None:
    """Whether ``text`` is markup: its body wrapped in one element, or half or more of its
    characters in elements (their tags and what they enclose) or tags."""
    body = _plain(text)
    tags = list(_TAG.finditer(body))
    if not tags:
        return None
    first, last = tags[0], tags[-1]
    if (first.start() == 0 and last.end() == len(body) and first.group(2)
            and last.group(1) == "/" and last.group(2) == first.group(2)):
        return Verdict("markup", f"a body wrapped in <{first.group(2)}>, not an answer",
                       {"tags": len(tags)})
    spans: list[tuple[int, int]] = []
    opened: list[re.Match[str]] = []
    for t in tags:
        if t.group(2) and not t.group(1) and not t.group(3):
            opened.append(t)
            continue
        start = t.start()
        if t.group(1) and any(o.group(2) == t.group(2) for o in opened):
            while opened and (o := opened.pop()).group(2) != t.group(2):
                pass
            start = o.start()
        spans.append((start, t.end()))
    spans += [(o.start(), o.end()) for o in opened]  # a tag never closed: its own characters
    inside = set().union(*(range(a, b) for a, b in spans))
    chars = [i for i, c in enumerate(body) if not c.isspace()]
    share = sum(i in inside for i in chars) / len(chars)
    if share >= MARKUP_SHARE:
        return Verdict("markup", f"markup, not an answer: {share:.0%} of it in {len(tags)} "
                       "tags and the elements they make", {"tags": len(tags),
                                                           "share": round(share, 2),
                                                           "threshold": MARKUP_SHARE})
    return None




def opaque(text: str) -> Verdict | None:
    """Whether ``text`` holds no words: most of its characters in long tokens that are none
    (16 characters or more mixing letters with digits or symbols: an encoded or hashed blob),
    or every token of it code (a link, a path, an address: brackets, ``=``, ``/``, ``@`` or
    ``_`` inside), 16 characters at least."""
    body = _plain(text)
    toks = _TOKEN.findall(body)
    chars = sum(len(t) for t in toks)
    blob = sum(len(t) for t in toks if len(t) >= 16 and "://" not in t
               and sum((any(c.isdigit() for c in t), any(c.islower() for c in t),
                        any(c.isupper() for c in t[1:]), any(c in "+/=_" for c in t))) >= 2
               and any(c.isdigit() or c in "+/=_" for c in t))
    if chars and blob / chars >= OPAQUE_SHARE:
        return Verdict("opaque", "an encoded or hashed blob, not an answer",
                       {"blob_chars": blob, "chars": chars, "threshold": OPAQUE_SHARE})
    code = _CODE_CHAR.findall(_TAG.sub(" ", body))  # tags are markup's to judge
    if len(code) >= CODE_CHARS and len(set(code)) >= 3 and len(code) >= CODE_SHARE * chars:
        return Verdict("opaque", "code, not an answer: "
                       f"{len(code)} of its {chars} characters are code's",
                       {"code_chars": len(code), "chars": chars, "threshold": CODE_SHARE})
    if chars >= 16 and all(_CODE.search(t.lstrip("([\"'“‘*").rstrip(")]\"'”’*.,;:!?")
                                        or "=") for t in toks):
        return Verdict("opaque", "a link, a path or code, not an answer",
                       {"tokens": len(toks), "chars": chars})
    return None




def bracketed(text: str) -> Verdict | None:
    """Whether ``text`` is one bracketed group holding another (an S-expression, a literal
    of nested lists): a data structure, not prose."""
    body = _plain(text)
    if not body or body[0] not in "([{":
        return None
    depth = deepest = 0
    for i, ch in enumerate(body):
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                if deepest >= 2 and not body[i + 1:].strip(" .,;"):
                    return Verdict("record", "a bracketed data structure, not an answer",
                                   {"depth": deepest})
                return None
    return None
