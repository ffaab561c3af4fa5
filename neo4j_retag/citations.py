"""One parser for the ``[Data: ...]`` citation markers GraphRAG-style models write, and the
check of every id in them.

Variants met in answers and reports: ``[Data: Reports (2, 7, +more)]``, ``[Data: Reports(12);
Entities (4)]``, ``[Data: Reports (5), Reports (90)]``, ``[Data: Reports (7; 13)]``, a uuid or a
human id (``#12``, ``report 12``) in place of a number, other record types (Entities,
Relationships, Claims, Sources), singular or plural, any case. Each marker is rewritten with its
valid ids only (``[Data: Reports (5, 90); Entities (4)]``); a marker with none is removed and
the sentence around it tidied ("described in [Data: Reports (99)]." becomes "described.").
Plain text (no I/O); the query and index layers say which ids are valid.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

KINDS = {"report": "Reports", "entit": "Entities", "relationship": "Relationships",
         "claim": "Claims", "source": "Sources", "covariate": "Claims", "text unit": "Sources"}
_KIND = r"(?:reports?|entit(?:y|ies)|relationships?|claims?|sources?|covariates?|text\s*units?)"
_GROUP = rf"{_KIND}\s*\([^()\[\]]*\)"
# "[Data: <group>[ ,;] <group> ...]": the "Data:" label is optional, groups must be complete
MARKER = re.compile(rf"\[\s*(?:data\s*:\s*)?((?:{_GROUP}\s*[,;]?\s*)+)\]", re.I)
GROUP = re.compile(rf"({_KIND})\s*\(([^()\[\]]*)\)", re.I)
UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)
# a human id: "#12", "id 12", "report 12", "R12"
HUMAN = re.compile(r"^(?:#|id\s*|report\s*|r)?(\d+)$", re.I)
MORE = re.compile(r"^\+?\s*more$", re.I)
# a preposition left dangling at the end of a clause once its marker is gone; English ones (in
# another language the preposition stays: "siehe." in German). A word list outside
# checks.language because this parser sits below it, in the vocabulary every layer imports
DANGLING = re.compile(r"\s*\b(?:see|in|per|from|by|at|of|according\s+to)\s*$", re.I)


def kind_of(word: str) -> str:
    """The canonical record type of a marker word ("Report", "entities" -> "Entities")."""
    w = " ".join(word.lower().split())
    return next(v for k, v in KINDS.items() if w.startswith(k))


def ident(token: str) -> int | str | None:
    """A cited id as the graph keys it: an int for numbers and human ids, a lower-case uuid,
    the token itself otherwise; None for ``+more`` and empty tokens (no id)."""
    tok = token.strip().strip("'\"`")
    if not tok or MORE.match(tok):
        return None
    if m := HUMAN.match(tok):
        return int(m.group(1))
    if UUID.match(tok):
        return tok.lower()
    return tok


@dataclass
class Checked:
    """The outcome of :func:`check`: the text with valid ids only, the (kind, id) pairs it
    cites in order, and every invalid id as ``"Kind id"``."""

    text: str
    cited: list[tuple[str, int | str]] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)

    def ids(self, kind: str) -> list[int | str]:
        """The valid ids of one record type, first mention first, without repeats."""
        return list(dict.fromkeys(i for k, i in self.cited if k == kind))


Valid = Mapping[str, Collection[int | str] | Mapping[int | str, int | str]]


def parse(text: str) -> list[tuple[str, int | str]]:
    """Every (record type, id) the markers of ``text`` cite, in order, unchecked."""
    return [(kind_of(word), i) for m in MARKER.finditer(text)
            for word, body in GROUP.findall(m.group(1))
            for tok in re.split(r"[,;]|\s+and\s+", body) if (i := ident(tok)) is not None]


def _resolve(i: int | str, ok: Collection[int | str] | Mapping[int | str, int | str],
             ) -> int | str | None:
    if isinstance(ok, Mapping):
        return next((ok[k] for k in (i, str(i)) if k in ok), None)
    return i if i in ok else None


def check(text: str, valid: Valid) -> Checked:
    """Every marker of ``text`` parsed and its ids checked against ``valid`` (record type ->
    the ids that were in the context; a mapping also translates aliases such as a GraphRAG
    uuid to our id). A type absent from ``valid`` cannot be cited."""
    out = Checked(text="")

    def sub(m: re.Match[str]) -> str:
        groups: dict[str, list[int | str]] = {}
        for word, body in GROUP.findall(m.group(1)):
            kind = kind_of(word)
            ok = valid.get(kind, ())
            for tok in re.split(r"[,;]|\s+and\s+", body):
                i = ident(tok)
                if i is None:
                    continue
                i = _resolve(i, ok)
                if i is None:
                    out.invalid.append(f"{kind} {tok.strip()}")
                    continue
                ids = groups.setdefault(kind, [])
                if i not in ids:
                    ids.append(i)
                    out.cited.append((kind, i))
        if not groups:
            return "\x00"  # removed below, with the words it leaves dangling
        inner = "; ".join(f"{k} ({', '.join(map(str, v))})" for k, v in groups.items())
        return f"[Data: {inner}]"

    out.text = tidy(MARKER.sub(sub, text))
    return out


def without_references(text: str) -> str:
    """``text`` with every data reference removed and the sentences tidied: an answer used as
    text (topic mining's topics and corpus description), not shown with its sources."""
    return check(text, {}).text


def tidy(text: str) -> str:
    """Remove the ``\\x00`` placeholders of dropped markers and what they leave behind: the
    space before them, a preposition that introduced them, empty brackets, doubled spaces."""
    if "\x00" not in text:
        return text
    parts = text.split("\x00")
    out = parts[0]
    for nxt in parts[1:]:
        # "described in [..]." -> "described."; but "in [..] the council" keeps its "in"
        if re.match(r"\s*(?:[.,;:!?)]|$)", nxt):
            out = DANGLING.sub("", out)
        out = out.rstrip(" \t") + ("" if re.match(r"[\s.,;:!?)]|$", nxt) else " ") + nxt
    out = re.sub(r"\(\s*(?:see\s*)?\)", "", out)
    out = re.sub(r"[ \t]+([.,;:!?])", r"\1", out)
    out = re.sub(r"([,;:])(?=[.,;:!?])", "", out)
    return re.sub(r"[ \t]{2,}", " ", out).strip()


def table_ids(context: str) -> dict[str, set[int | str]]:
    """The ids of the titled CSV tables of a prompt context (``-----Entities-----`` then a
    header with an ``id`` column): what a reply written from that context may cite."""
    out: dict[str, set[int | str]] = {}
    for title, body in re.findall(r"^-----([^-\n]+)-----\n(.*?)(?=^-----|\Z)", context,
                                  flags=re.M | re.S):
        try:
            kind = kind_of(title.strip())
        except StopIteration:
            continue
        rows = list(csv.reader(io.StringIO(body)))
        if not rows or "id" not in rows[0]:
            continue
        col = rows[0].index("id")
        ids = out.setdefault(kind, set())
        for r in rows[1:]:
            if len(r) > col and (i := ident(r[col])) is not None:
                ids.add(i)
    return out
