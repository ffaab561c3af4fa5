"""Ligature glyphs a PDF's ToUnicode map sends to the private-use area or to U+0000 (some
typesetters do: PDFium then gives a PUA character or nothing, and "finance" reads "nance"),
recovered from the glyph's name in the font's ``/Differences`` (``/fi``, ``/f_f_i``,
``/uniFB03``), read with pypdf (BSD-3) since PDFium does not expose glyph names.

Only simple (one byte a code) fonts are looked into; a glyph that cannot be recovered is left
as U+FFFD (or, when PDFium dropped it, counted alone) so the loss is counted, not silent."""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from pypdf import PdfReader
from pypdf._codecs.adobe_glyphs import adobe_glyphs  # the Adobe Glyph List: name -> text
from pypdf.generic import ContentStream

log = logging.getLogger(__name__)
LOST = "\ufffd"
_BFCHAR = re.compile(rb"beginbfchar(.*?)endbfchar", re.S)
_BFRANGE = re.compile(rb"beginbfrange(.*?)endbfrange", re.S)
_HEX = re.compile(rb"<([0-9A-Fa-f]*)>")


UNREADABLE = re.compile("[\x00\ue000-\uf8ff]")  # U+0000 and the private-use area
CONTEXT = 8  # glyphs either side that place a bad glyph in PDFium's text
Run = list[tuple[str, str]]  # glyphs shown one after another: (as PDFium shows it, as read)
_GAP = (" ", " ")  # a line move or a wide kerning: a ligature after it starts a word
_MOVES = {b"Td", b"TD", b"Tm", b"T*"}
WORD_GAP = -200  # a TJ adjustment (thousandths of an em) this negative reads as a space


def unreadable(ch: str) -> bool:
    """A character that stands for no text: U+0000 or the private-use area."""
    return ch == "\x00" or "\ue000" <= ch <= "\uf8ff"


def _cmap(data: bytes) -> dict[int, str]:
    """A ToUnicode CMap's one-byte codes -> text (bfchar and bfrange with a start)."""
    out: dict[int, str] = {}
    for block in _BFCHAR.findall(data):
        hexes = _HEX.findall(block)
        for src, dst in zip(hexes[::2], hexes[1::2], strict=False):
            out[int(src, 16)] = bytes.fromhex(dst.decode()).decode("utf-16-be", "replace")
    for block in _BFRANGE.findall(data):
        for lo, hi, dst in re.findall(rb"<(\w+)>\s*<(\w+)>\s*<(\w+)>", block):
            start = int(dst, 16)
            for i, code in enumerate(range(int(lo, 16), int(hi, 16) + 1)):
                out[code] = chr(start + i) if start + i < 0x110000 else LOST
    return out


def letters(name: str) -> str | None:
    """The text a glyph name stands for (``fi`` -> "fi", ``f_f_i`` -> "ffi", ``uniFB01`` ->
    "fi"), compatibility-decomposed; None for a name that says nothing."""
    base = name.split(".")[0]
    if text := adobe_glyphs.get(f"/{base}"):
        return unicodedata.normalize("NFKC", text)
    if m := re.fullmatch(r"uni((?:[0-9A-F]{4})+)", base):
        return unicodedata.normalize("NFKC", "".join(
            chr(int(m.group(1)[i:i + 4], 16)) for i in range(0, len(m.group(1)), 4)))
    if "_" in base:
        parts = [letters(p) for p in base.split("_")]
        return "".join(p for p in parts if p) if all(parts) else None
    return None


@dataclass
class _Font:
    to_unicode: dict[int, str]
    names: dict[int, str]

    def bad(self) -> bool:
        return any(unreadable(t) for t in self.to_unicode.values() if len(t) == 1)

    def seen_fixed(self, code: int) -> tuple[str, str]:
        """(what PDFium gives for ``code``, what the glyph reads as)."""
        mapped = self.to_unicode.get(code)
        if mapped is None:
            text = letters(self.names[code]) if code in self.names else None
            return (text or chr(code),) * 2
        if len(mapped) == 1 and unreadable(mapped):
            name = self.names.get(code)
            return ("" if mapped == "\x00" else mapped), (letters(name) if name else None) or LOST
        return mapped, mapped


def _font(obj) -> _Font | None:  # noqa: ANN001 - a pypdf font dictionary
    font = obj.get_object()
    if font.get("/Subtype") == "/Type0" or "/ToUnicode" not in font:
        return None
    names: dict[int, str] = {}
    enc = font.get("/Encoding")
    enc = enc.get_object() if enc is not None else None
    if hasattr(enc, "get") and enc.get("/Differences") is not None:
        code = 0
        for item in enc["/Differences"]:
            if isinstance(item, int):
                code = int(item)
            else:
                names[code] = str(item).lstrip("/")
                code += 1
    return _Font(_cmap(font["/ToUnicode"].get_object().get_data()), names)


@dataclass
class Glyphs:
    """A PDF's fonts, read once each: ``fixes(page)`` for a page that has bad glyphs. A PDF
    pypdf cannot parse (PDFium could) gets no fixes, with a log record: its unreadable
    characters are still counted by `recover`."""

    path: Path
    fonts: dict[int, _Font | None] = field(default_factory=dict)
    reader: PdfReader | None = None
    failed: bool = False

    def _page_fonts(self, page) -> dict[str, _Font]:  # noqa: ANN001
        res = page.get("/Resources")
        fonts = res.get_object().get("/Font") if res is not None else None
        out: dict[str, _Font] = {}
        for name, ref in (fonts.get_object().items() if fonts is not None else ()):
            key = getattr(ref, "idnum", id(ref))
            if key not in self.fonts:
                self.fonts[key] = _font(ref)
            if (f := self.fonts[key]) is not None and f.bad():
                out[name] = f
        return out

    def fixes(self, index: int) -> list[Run]:
        """The runs of glyphs of page ``index`` (from 0) shown in fonts with a bad glyph, in
        content order, each glyph as (text as PDFium shows it, text as read); [] when its
        fonts have none."""
        if self.failed:
            return []
        try:
            return self._fixes(index)
        except Exception as err:  # noqa: BLE001 - the text PDFium read is kept as it is
            self.failed = True
            log.warning("%s: ligature glyphs not recovered (pypdf: %s: %s)", self.path,
                        type(err).__name__, err)
            return []

    def _fixes(self, index: int) -> list[Run]:
        if self.reader is None:
            self.reader = PdfReader(str(self.path))
        page = self.reader.pages[index]
        fonts = self._page_fonts(page)
        if not fonts:
            return []
        runs: list[Run] = [[]]
        font: _Font | None = None
        for operands, op in ContentStream(page.get_contents(), self.reader).operations:
            if op == b"Tf":
                font = fonts.get(operands[0])
                if font is None and runs[-1]:  # text in another font: not known here
                    runs.append([])
            elif op in _MOVES:  # a new line: a space between the glyphs around it
                runs[-1].append(_GAP)
            elif font is not None and op in (b"Tj", b"TJ", b"'", b'"'):
                # a glyph alone in its string (a TJ array's kerned piece) is read with the
                # strings around it: its neighbours place it in PDFium's text
                items = operands[0] if op == b"TJ" else operands[-1:]
                runs[-1] += [_GAP] if op in (b"'", b'"') else []
                for item in items:
                    if isinstance(item, str | bytes):
                        raw = item.original_bytes if hasattr(item, "original_bytes") else item
                        runs[-1] += [font.seen_fixed(c) for c in bytes(raw)]
                    elif float(item) <= WORD_GAP:  # kerning as wide as a word space
                        runs[-1].append(_GAP)
        return [run for run in runs if any(seen != fixed for seen, fixed in run)]


def _solid(text: str) -> str:
    return "".join(c for c in text if not c.isspace())


def _place(flat: str, keys: list[tuple[str, str, str]], cursor: int,
           taken: set[int]) -> int | None:
    """Where in ``flat`` (the page text without white space) the glyph between ``left`` and
    ``right`` is: after ``cursor`` first, then anywhere, at a place no other run took; the
    widest context that is found wins."""
    for left, me, right in keys:
        if not (left or right):
            continue
        key = left + me + right
        for start in (cursor, 0):
            found = flat.find(key, start)
            while found >= 0 and found + len(left) in taken:
                found = flat.find(key, found + 1)
            if found >= 0:
                return found + len(left)
    return None


def recover(text: str, runs: list[Run]) -> tuple[str, int]:
    """``text`` with each bad glyph of ``runs`` read by its name, placed by the glyphs
    around it (white space aside: PDFium adds spaces and line breaks a content stream does
    not have), and every character still unreadable as U+FFFD; returns (text, characters
    lost)."""
    at = [i for i, c in enumerate(text) if not c.isspace()]  # flat index -> text index
    flat = "".join(text[i] for i in at)
    edits: dict[int, tuple[int, str]] = {}  # text index -> (characters replaced, text)
    taken: set[int] = set()  # flat places of the runs placed before
    cursor, lost = 0, 0
    for run in runs:
        mine: set[int] = set()
        for g, (seen, fixed) in enumerate(run):
            if seen == fixed:
                continue
            before = _solid("".join(s for s, _ in run[:g]))
            after = _solid("".join(s for s, _ in run[g + 1:]))
            me = _solid(seen)
            keys = [(before[-k:], me, after[:k]) for k in (CONTEXT, CONTEXT // 2, 2)]
            spot = _place(flat, keys, cursor, taken)
            if spot is None:  # nowhere PDFium put it: its glyph is lost
                lost += 1
                continue
            cursor = spot
            mine.add(spot)
            lost += fixed.count(LOST)
            if me:  # PDFium shows a private-use character: it is replaced
                i, n = at[spot], len(me)
            elif before and (not after or _solid(run[g - 1][0])):  # glued to the letter before
                i, n = at[spot - 1] + 1, 0
            else:  # after a space, or first: before the letter after it
                i, n = at[spot], 0
            old = edits.get(i, (0, ""))
            edits[i] = (max(n, old[0]), old[1] + fixed)  # dropped glyphs side by side: in order
        taken |= mine
    for i in sorted(edits, reverse=True):
        n, fixed = edits[i]
        text = text[:i] + fixed + text[i + n:]
    text, rest = UNREADABLE.subn(LOST, text)
    return text, lost + rest
