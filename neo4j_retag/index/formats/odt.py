"""OpenDocument text (.odt: LibreOffice, OpenOffice, Google Docs' export), read from its XML
with the standard library: headings (``text:h``) as the heading path, paragraphs, lists,
tables as Markdown (a merged cell once; nested tables after their parent), text boxes after
their paragraph, footnotes and endnotes as in Word files (``[^1]``, ``[^e1]``), the page
header and footer once (``Page header: ...`` first, ``Page footer: ...`` last), the accepted
view of tracked changes (deletions are kept apart in ``text:tracked-changes``: not read),
and neither comments nor text formatted hidden. Pages are known where the file records its
page breaks (``text:soft-page-break``, written by LibreOffice at each page of its last
layout, and paragraphs styled to break before or after them); else no part has a page."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from ...model import Progress
from .base import Part, Unreadable
from .tables import markdown_table

_NS = {"office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
       "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
       "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
       "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
       "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
       "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
       "dc": "http://purl.org/dc/elements/1.1/"}


def _t(name: str) -> str:
    """``text:p`` -> ``{urn:...:text:1.0}p``."""
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


# what a reader does not see: comments, deleted text, a ruby's guide, declarations, an index's
# template, a note's body where it is anchored (read at the section end)
_UNSEEN = {_t(n) for n in ("office:annotation", "office:annotation-end", "text:tracked-changes",
                           "text:ruby-text", "text:sequence-decls", "text:variable-decls",
                           "text:user-field-decls", "office:forms", "text:note-body",
                           "text:table-of-content-source", "text:alphabetical-index-source",
                           "text:illustration-index-source", "text:user-index-source",
                           "text:bibliography-source", "text:table-index-source",
                           "text:object-index-source", "table:table-columns",
                           "table:table-column", "draw:image")}
_MAX_REPEAT = 64  # repeated cells or rows written out (a style may repeat an empty one 1000s)
_STYLE = _t("text:style-name")


@dataclass
class _Styles:
    """Style names whose text is hidden (``text:display="none"``), and paragraph styles that
    break the page before or after, by inheritance."""

    hidden: set[str] = field(default_factory=set)
    before: set[str] = field(default_factory=set)
    after: set[str] = field(default_factory=set)

    def add(self, root: ET.Element) -> None:
        parents: dict[str, str] = {}
        own: dict[str, tuple[bool, bool, bool]] = {}
        for style in root.iter(_t("style:style")):
            name = style.get(_t("style:name"), "")
            parents[name] = style.get(_t("style:parent-style-name"), "")
            text = style.find(_t("style:text-properties"))
            para = style.find(_t("style:paragraph-properties"))
            own[name] = (text is not None and text.get(_t("text:display")) == "none",
                         para is not None and para.get(_t("fo:break-before")) == "page",
                         para is not None and para.get(_t("fo:break-after")) == "page")
        for name in own:
            seen, at = set(), name
            flags = [False, False, False]
            while at in own and at not in seen:  # the nearest style that says, else its parent
                seen.add(at)
                flags = [f or o for f, o in zip(flags, own[at], strict=True)]
                at = parents.get(at, "")
            for on, names in zip(flags, (self.hidden, self.before, self.after), strict=True):
                if on:
                    names.add(name)


class _Reader:
    def __init__(self, styles: _Styles, paged: bool) -> None:
        self.styles = styles
        self.page: int | None = 1 if paged else None
        self.images = 0
        self.notes: list[str] = []
        self.started = False  # a paragraph with text was read: a page break may follow

    def inline(self, node: ET.Element, boxes: list[ET.Element]) -> str:
        """The text of a paragraph as shown; text boxes go to ``boxes``."""
        out = [node.text or ""]
        for child in node:
            tag = child.tag
            if tag == _t("draw:image"):
                self.images += 1
            elif tag == _t("text:s"):
                out.append(" " * int(child.get(_t("text:c"), "1")))
            elif tag == _t("text:tab"):
                out.append("\t")
            elif tag == _t("text:line-break"):
                out.append("\n")
            elif tag == _t("text:note"):
                out.append(self._note(child))
            elif tag == _t("draw:text-box"):
                boxes.append(child)
            elif tag == _t("text:hidden-text") and child.get(_t("text:is-hidden")) == "true":
                pass
            elif tag not in _UNSEEN and child.get(_STYLE) not in self.styles.hidden:
                out.append(self.inline(child, boxes))
            out.append(child.tail or "")
        return "".join(out)

    def _note(self, note: ET.Element) -> str:
        mark = ("e" if note.get(_t("text:note-class")) == "endnote" else "") + " ".join(
            "".join(note.findtext(_t("text:note-citation")) or "").split())
        body = note.find(_t("text:note-body"))
        text = " ".join(t for _, t, _ in self.blocks(body) if t) if body is not None else ""
        self.notes.append(f"[^{mark}]: {' '.join(text.split())}")
        return f"[^{mark}]"

    def blocks(self, container: ET.Element) -> Iterator[tuple[int, str, int | None]]:
        """(heading level or 0, text, page) of each paragraph, list item and table in
        reading order (a table is level -1)."""
        for child in container:
            tag = child.tag
            if tag in _UNSEEN or child.get(_t("text:display")) == "none":
                continue
            if tag == _t("text:soft-page-break"):
                self._turn(1)
            elif tag in (_t("text:p"), _t("text:h")):
                yield from self._paragraph(child)
            elif tag == _t("text:list"):
                for item in child:
                    first = True
                    for level, text, page in self.blocks(item):
                        yield level, f"- {text}" if first and level == 0 and text else text, page
                        first = first and not text
            elif tag == _t("table:table"):
                yield from self._table(child)
            elif tag == _t("draw:frame"):
                for box in child.findall(_t("draw:text-box")):
                    yield from self.blocks(box)
                self.images += len(list(child.iter(_t("draw:image"))))
            else:  # sections, an index's body, list headers: their content in place
                yield from self.blocks(child)

    def _turn(self, pages: int) -> None:
        if self.page is not None:
            self.page += pages

    def _paragraph(self, p: ET.Element) -> Iterator[tuple[int, str, int | None]]:
        style = p.get(_STYLE, "")
        hidden = p.find(_t("text:hidden-paragraph"))
        if style in self.styles.hidden or (hidden is not None and
                                           hidden.get(_t("text:is-hidden")) == "true"):
            return
        if style in self.styles.before and self.started:
            self._turn(1)
        boxes: list[ET.Element] = []
        text = self.inline(p, boxes).strip()
        level = int(p.get(_t("text:outline-level"), "1")) if p.tag == _t("text:h") else 0
        breaks = sum(1 for _ in p.iter(_t("text:soft-page-break")))  # within: after it
        yield level, text, self.page
        self.started = self.started or bool(text)
        for box in boxes:
            yield from self.blocks(box)
        self._turn(breaks + (style in self.styles.after))

    def _table(self, tbl: ET.Element) -> Iterator[tuple[int, str, int | None]]:
        page, rows, nested = self.page, [], []
        for row in _rows(tbl):
            cells: list[str] = []
            for cell in row:
                if cell.tag == _t("table:covered-table-cell"):
                    cells.append("")
                elif cell.tag == _t("table:table-cell"):
                    texts = []
                    for level, text, _ in self.blocks(cell):
                        (nested if level == -1 else texts).append(text)
                    repeat = min(int(cell.get(_t("table:number-columns-repeated"), "1")),
                                 _MAX_REPEAT)
                    cells += [" ".join(t for t in texts if t)] * repeat
            rows += [cells] * min(int(row.get(_t("table:number-rows-repeated"), "1")),
                                  _MAX_REPEAT)
        yield -1, markdown_table(rows), page
        for table in nested:
            yield -1, table, page


def _rows(tbl: ET.Element) -> Iterator[ET.Element]:
    """A table's rows, in header rows and row groups at any depth (not a nested table's)."""
    for child in tbl:
        if child.tag == _t("table:table-row"):
            yield child
        elif child.tag in (_t("table:table-header-rows"), _t("table:table-rows"),
                           _t("table:table-row-group")):
            yield from _rows(child)


def _parse(z: zipfile.ZipFile, name: str) -> ET.Element | None:
    try:
        return ET.fromstring(z.read(name))
    except KeyError:
        return None
    except ET.ParseError as err:
        raise Unreadable("corrupt", f"corrupt .odt: {name}: {err}") from err


def read_odt(path: Path, progress: Progress) -> Iterator[Part]:
    """One `Part` per heading section and page (``heading`` the path of its ``text:h``
    headings, ``page`` where the file records page breaks); the first says the document's
    ``dc:title``. Raises Unreadable: no-text (images only), corrupt."""
    try:
        with zipfile.ZipFile(path) as z:
            content = _parse(z, "content.xml")
            extra = [_parse(z, "styles.xml"), _parse(z, "meta.xml")]
    except (zipfile.BadZipFile, OSError) as err:
        raise Unreadable("corrupt", f"corrupt .odt archive: {err}") from err
    body = (content.find(f"{_t('office:body')}/{_t('office:text')}")
            if content is not None else None)
    if body is None:
        raise Unreadable("corrupt", "corrupt .odt: content.xml holds no text body")
    styles = _Styles()
    for root in (extra[0], content):
        if root is not None:
            styles.add(root)
    title = extra[1].findtext(f".//{_t('dc:title')}") if extra[1] is not None else None
    paged = (body.find(f".//{_t('text:soft-page-break')}") is not None
             or any(p.get(_STYLE) in styles.before | styles.after for p in body.iter()))
    reader = _Reader(styles, paged)
    parts = list(_parts(reader, body, title or None))
    if parts and extra[0] is not None:  # the page header and footer once, first and last
        for kind in ("header", "footer"):
            texts = list(dict.fromkeys(
                " ".join(t for _, t, _ in _Reader(styles, False).blocks(part) if t)
                for master in extra[0].iter(_t("style:master-page"))
                for part in master if part.tag.startswith(_t(f"style:{kind}"))))
            found = [Part("\n\n".join(f"Page {kind}: {t}" for t in texts if t))]
            parts = found + parts if kind == "header" else parts + found
    if not parts and reader.images:
        raise Unreadable("no-text", f"no text: {reader.images} image(s) only (OCR is not "
                                    "included)")
    yield from parts


def _parts(reader: _Reader, body: ET.Element, title: str | None) -> Iterator[Part]:
    """The blocks grouped by heading section and page; a section's notes at its end."""
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    heading: str | None = None
    page = reader.page
    for level, text, at in reader.blocks(body):
        new_section = level > 0 and bool(text)
        if lines and (new_section or at != page):
            if new_section:
                lines += reader.notes
                reader.notes = []
            yield Part("\n\n".join(lines), page=page, heading=heading, title=title)
            lines = []
        if new_section:
            stack = [(lv, t) for lv, t in stack if lv < level] + [(level, text)]
            heading = " > ".join(t for _, t in stack)
            text = f"{'#' * min(level, 6)} {text}"
        if text:
            page = at if not lines else page
            lines.append(text)
    lines += reader.notes
    if lines:
        yield Part("\n\n".join(lines), page=page, heading=heading, title=title)
