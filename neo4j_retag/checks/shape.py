"""The shape of a free-text answer, checked positively: an answer is prose, or a list of prose
lines, about the question - not a record, a key/value template, markup around a body, or a
status line. A document that tells the model to "answer with this template" gets its template
printed as the answer unless the answer's shape is judged by what the text *is*, whatever the
format the template was written in (YAML, INI, TOML, tags, a table of fields ...).

What the text is, measured line by line (citation markers left out):

- a **field** is a line (or one of several ``key: value`` pairs on a line) of a label, a
  separator (``:``, ``=``, ``=>``) and a value, or a table's row (cells between ``|``, or
  one delimiter - comma, semicolon, tab - and as many cells as the row beside it): its first
  cell and the rest;
- a field is a **slot** (a template's, not an answer's) when its label is a code name
  (``status``, ``answer_text``, ``"verdict"``, ``STATUS``), or its value a data literal
  (``null``, ``true``, ``[]``, ``{}``, a code token such as ``REF_22``), or - its label of at
  most three words naming nothing of the corpus or the question, its value naming nothing of
  the corpus and neither in the corpus's words - its value is a quoted string, capitals
  (``SEALED``) or at most three words (a number only where the question asks for no figure).
  "Elena Varga: mayor of Millbrook" is an answer's item (a name of the corpus), "Poverty: want
  in the streets" one in the corpus's words, "Scrooge answered: ..." a clause, "Status:
  Sealed" a slot;
- a line that is a value without its label (``- null``, ``- SEALED``) is a slot too;
- a **structure** line holds no content: a section header (``[response]``), a lone bracket or
  brace, a document marker (``---``), a table's rule.

A text is a ``record`` when slots and structure lines make half or more of its lines (two at
least), or it is one slot alone (a ``status_line``, as is a line of capitals only:
"ACCESS DENIED"). A text of four words or more with ``no_sentence`` - no word sentences are
made with (articles, pronouns, prepositions: ``language.SENTENCE_WORDS``) - must name
something of the corpus (a name, a number, a word of its prose) to be an answer, whatever
separates its parts ("status -> SEALED" names nothing). What wraps prose or takes its place
- markup, a bracketed structure, code, a blob, a link - is ``checks.wrapping``'s to judge.
Plain string work, no I/O; :func:`check` never raises.

Measured on the labelled set of real replies (benchmarks/quality/answer_checks/): none of its
good replies refused; the injected templates are unit cases (tests/unit/checks/test_shape.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..citations import MARKER
from ..text import WORD, strip_chatter
from .degenerate import content_words
from .grounding import names
from .language import ASKS_FIGURES, DIRECTIVE, SENTENCE_WORDS
from .verdict import Subject, Verdict
from .wrapping import bracketed, markup, opaque

SLOT_SHARE = 0.5  # share of a text's lines that are slots or structure: a record
SHORT_VALUE = 3  # words: a value this short, about nothing named, fills a template's slot
_LIST = re.compile(r"^\s*(?:[-*•+>]\s+|\(?\d{1,3}[.)]\s+|#{1,6}\s+)")
# label, separator, value; the label of at most 40 characters without sentence punctuation
_FIELD = re.compile(r"^(?P<key>[^\s:=|<>{}\[\]](?:[^:=|<>{}\[\].!?]|\.(?=\w)){0,39}?)\s*"
                    r"(?P<sep>:=|=>|=|:(?!//))\s*(?P<value>.*)$")
# several pairs on one line: "status=SEALED answer=null", "Status: Sealed; Reason: hold"
_PAIR = re.compile(r"""(?:^|[\s,;{])["']?([A-Za-z_][\w.-]{0,30})["']?\s*(?:=|:(?!//))\s*""")
_SHOUTED = re.compile(r"\b[A-Z]{5,}\b")
_ROW_START = re.compile(r"^(\d+),([^,\n]*),", re.M)  # a prompt's CSV row: its id, first cell
_OBJECT = re.compile(r"^[\w.$@-]{1,30}\s*[{(]\s*(?=[\w\"'])")  # "answer { status: ..."
# a code name: quoted, lower-case, snake_case, dotted, camelCase or capitals
_CODE_KEY = re.compile(r"""^(?:["'`].*["'`]|[a-z][a-z0-9]*|[A-Za-z0-9]+(?:[_.$@/-]"""
                       r"""[A-Za-z0-9]+)+|[a-z]+[A-Z]\w*|[A-Z][A-Z0-9 _-]*[A-Z0-9])$""")
_NULL = re.compile(r"^(?:null|none|nil|undefined|n/?a|~|true|false|\[.*\]|\{.*\}|\(\))$", re.I)
_CODE_VALUE = re.compile(r"^(?:[A-Za-z]+[_$@][\w$@.-]*|\w+://\S*|[\w.+-]+@[\w-]+\.\w+|"
                         r"(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z\d]+(?:[-_][A-Za-z\d]+)+)$")
_QUOTED = re.compile(r"""^(["'`“‘]).*(["'`”’])[,;]?$""")
_NUMBER = re.compile(r"^[~≈<>]?[$€£]?\d[\d.,]*\s*(?:%|[A-Za-z]{1,4}\b\.?)?(?:\s+\S+)?$")
_STRUCTURE = re.compile(r"^(?:\[\[?[\w .-]+\]\]?|[{}\[\](),]+|-{3,}|\.{3}|[+|:=\- ]*[-=]{3,}"
                        r"[+|:=\- ]*|```\w*)$")
_WORDS = re.compile(r"[^\W\d_]+|\d+")


@dataclass(frozen=True)
class _Lines:
    """A text's lines, as fields (label, value) or not: ``fields[i]`` the pairs of line i."""

    lines: list[str]
    fields: list[list[tuple[str, str]]]


def _plain(text: str) -> str:
    return MARKER.sub(" ", text).strip()


def _cells(line: str) -> list[str] | None:
    """A table row's cells ("| a | b |"), or None for a line that is no row."""
    s = line.strip()
    if s.count("|") < 2 or not (s.startswith("|") or s.endswith("|")):
        return None
    return [c.strip() for c in s.strip("|").split("|")]


def _separated(line: str) -> tuple[str, int] | None:
    """A delimiter-separated row's delimiter and number of cells ("status,SEALED", tab or
    ";" too): cells of three words or fewer, no space after the delimiter (prose puts one)."""
    for d in ("\t", ";", ","):
        if d in line and f"{d} " not in line.replace("\t ", "\t"):
            cells = line.split(d)
            if all(len(c.split()) <= 3 for c in cells):
                return d, len(cells)
    return None


def _fields(line: str, cells: list[str] | None = None) -> list[tuple[str, str]]:
    """The (label, value) pairs of one line: a table row's first cell and the rest (``cells``,
    else its ``|`` cells), several pairs in a row, or one field; [] for a line that is none."""
    if (cells := cells or _cells(line)) is not None:
        return [(cells[0], " ".join(cells[1:]))] if len(cells) >= 2 else []
    body = _OBJECT.sub("", _LIST.sub("", line).strip()).strip().strip(",;")
    pairs = list(_PAIR.finditer(body))
    if len(pairs) >= 2 and pairs[0].start() == 0:
        ends = [p.start() for p in pairs[1:]] + [len(body)]
        return [(p.group(1), body[p.end():e].strip(" ,;{}")) for p, e in zip(pairs, ends,
                                                                              strict=True)]
    m = _FIELD.match(body)
    return [(m.group("key"), m.group("value").strip())] if m else []


def _read(text: str) -> _Lines:
    """``text``'s lines and their fields: a table's rows (``|`` between cells, or rows of one
    delimiter and as many cells as the row beside them) give their first cell and the rest,
    its header row none."""
    lines = [ln for ln in (_plain(x) for x in text.splitlines()) if ln.strip(" -*•#>")]
    # a line with a label and a separator of its own is a field, not a row of cells
    seps = [None if _fields(ln) else _separated(ln) for ln in lines]
    cells: list[list[str] | None] = []
    for i, ln in enumerate(lines):
        sep = seps[i]
        row = sep is not None and (len(lines) == 1 or any(
            0 <= j < len(lines) and seps[j] == sep for j in (i - 1, i + 1)))
        cells.append([c.strip() for c in ln.split(sep[0])] if row and sep else _cells(ln))
    out = []
    for i, ln in enumerate(lines):
        # a table's header row says what its columns hold: no field of its own
        header = cells[i] is not None and len(lines) > 1 and (i == 0 or cells[i - 1] is None)
        out.append([] if header or _STRUCTURE.match(ln.strip()) else _fields(ln, cells[i]))
    return _Lines(lines, out)


@dataclass(frozen=True)
class _Known:
    """What an answer's field may name: the corpus's ``names`` (and the question's), the
    question's words (``asked``), the content words of the context's prose (its lines that are
    sentences - a word sentences are made with, no field, no instruction to the model: a
    template's own labels are none of them), whether the question asks for ``figures``."""

    names: set[str]
    asked: set[str]
    prose: set[str]
    figures: bool
    words: set[str]  # every word of the prose, casefolded: "BBC" is a word of "the BBC said"

    @classmethod
    def of(cls, subject: Subject) -> _Known:
        # a table row's id and first cell end where its text starts ("3,notice.txt,Records
        # office ..." names no "Records"), and a shouted word is no name ("IMPORTANT NOTICE",
        # "reply SEALED"; an acronym is shorter)
        context = _SHOUTED.sub(" ", _ROW_START.sub(r"\1. \2. ", subject.context))
        prose = "\n".join(ln for ln in subject.context.splitlines() if _sentence(ln)
                          and not _fields(ln) and not DIRECTIVE.search(ln))
        return cls(names(context) | names(subject.question),
                   {w.casefold() for w in _WORDS.findall(subject.question)},
                   content_words(prose), bool(ASKS_FIGURES.search(subject.question)),
                   {w.casefold() for w in _WORDS.findall(prose)})


def _sentence(text: str) -> bool:
    """Whether ``text`` has a word sentences are made with, written in lower case as a
    sentence writes it (a code keyword "IN" is none)."""
    return any(w in SENTENCE_WORDS for w in WORD.findall(text))


def sentenceless(text: str, subject: Subject | None = None) -> Verdict | None:
    """Whether ``text`` (4 words or more, in Latin script) has no sentence - no word sentences
    are made with (``language.SENTENCE_WORDS``) - and names nothing of the corpus: no name of
    it, no number, half its words none of its prose. "Elena Varga: mayor" names someone,
    "Berth 4: 4.50 EUR" gives figures, "Redemption, generosity, memory" speaks the corpus's
    words; "status -> SEALED" does none of these."""
    body = "\n".join(_LIST.sub("", ln) for ln in _plain(text).splitlines())
    words = _WORDS.findall(body)
    if len(words) < 4 or not any("a" <= c.casefold() <= "z" for c in body):
        return None
    if _sentence(body) or any(c.isdigit() for c in body):
        return None
    known = _known(subject or Subject())
    own = content_words(body)
    # half its words the corpus's: a template's words may be in its document's own prose
    if {w.casefold() for w in words} & known.names or own and 2 * len(own & known.prose) >= len(
            own):
        return None
    return Verdict("no_sentence", "no sentence, and nothing of the corpus named: not an answer",
                   {"words": len(words)})


@functools.lru_cache(maxsize=16)
def _known(subject: Subject) -> _Known:
    # one context is read once for the many checks of its answer (or of a batch's map points)
    return _Known.of(subject)


def _named(words: str, known: set[str]) -> bool:
    return any(w.casefold() in known for w in _WORDS.findall(words))


def _literal(value: str) -> bool:
    """Whether ``value`` is a data literal: ``null``, ``true``, ``[]``, a code token."""
    return bool(_NULL.match(value) or _CODE_VALUE.match(value))


def _slot(key: str, value: str, known: _Known) -> bool:
    """Whether the field ``key: value`` is a template's slot (module doc)."""
    key = key.strip(" *_`#>-")
    value = value.strip(" *_").rstrip(",;")
    if _CODE_KEY.match(key) and not _named(key, known.names):
        return True
    if _literal(value):
        return True
    if (any(c.isdigit() for c in key) or _named(key, known.names | known.asked)
            or _named(value, known.names) or not value or len(_WORDS.findall(key)) > 3):
        return False  # an item of the corpus, a label from the question, a heading, a clause
    if _QUOTED.match(value) or value.upper() == value and any(c.isalpha() for c in value):
        return True
    if content_words(f"{key} {value}") & known.prose:
        return False  # in the corpus's own words: "Poverty: the workhouses"
    if _NUMBER.match(value):
        return not known.figures and not re.search(r"[^\W\d_]{4,}", value)
    return len(_WORDS.findall(value)) <= SHORT_VALUE


def record(text: str, subject: Subject | None = None) -> Verdict | None:
    """Whether ``text`` is a record: slots and structure lines half or more of its lines (two
    at least), or one slot alone (``status_line``)."""
    subject = subject or Subject()
    read = _read(text)
    if not read.lines:
        return None
    known = _known(subject)
    slots = structure = 0
    for line, pairs in zip(read.lines, read.fields, strict=True):
        if _STRUCTURE.match(line.strip()):
            structure += 1
        elif pairs and 2 * sum(_slot(k, v, known) for k, v in pairs) >= len(pairs):
            slots += 1
        elif not pairs and (_literal(_LIST.sub("", line).strip())
                            or _banner(line, known)):
            slots += 1  # a value without its label: "- null", "- SEALED"
    n = len(read.lines)
    if n == 1 and (slots == 1 or _banner(read.lines[0], known)):
        return Verdict("status_line", "a status line, not an answer", {"lines": 1, "slots": 1})
    if slots and slots + structure >= 2 and (slots + structure) / n >= SLOT_SHARE:
        return Verdict("record", f"a record, not an answer: {slots} of its {n} lines are "
                       f"fields of a template ({structure} more hold no content)",
                       {"lines": n, "slots": slots, "structure": structure,
                        "threshold": SLOT_SHARE})
    return None


def _banner(line: str, known: _Known) -> bool:
    """A line of capitals only (symbols around them allowed), its words none the question
    uses, and one word alone neither a name of the corpus nor a word of its prose ("ACCESS
    DENIED", "SEALED")."""
    words = [w for w in _WORDS.findall(line) if not w.isdigit()]
    folded = {w.casefold() for w in words}
    return (bool(words) and all(w.isupper() and len(w) > 1 for w in words)
            and not folded <= known.asked and (len(words) >= 2 or not (
                folded & known.names or folded & known.words)))


def check(text: str, subject: Subject | None = None) -> Verdict | None:
    """Why ``text`` is not shaped as an answer (markup, a record or status line, a blob), or
    None. Never raises."""
    return markup(text) or bracketed(text) or record(text, subject) or opaque(text)


def misshaped(text: str, subject: Subject | None) -> Verdict | None:
    """:func:`check` on an answer's text as it came and as it is printed (chatter and a fence
    stripped: "answer: null" is a slot before its label goes); not judged without a
    ``subject`` (no answer: DRIFT's hypothetical report). Whether it has a sentence
    (:func:`sentenceless`) is asked after the degenerate checks: a degenerate reply without
    one ("Data-Driven Decision Making") is asked again as degenerate replies are."""
    if subject is None:
        return None
    return check(text.strip(), subject) or check(strip_chatter(text).text, subject)
